"""Actor-critic (PyTorch's examples/reinforcement_learning/actor_critic.py shape).

Healthy. Shared body (Linear 4->128, ReLU), an actor head (action
probabilities) and a critic head (state value); Adam lr 3e-2; per episode,
normalised discounted returns, policy loss -log_prob * (R - V) and
smooth_l1 value loss, summed, one optimizer step per episode. The
environment is CartPole's physics (gym's equations) written in the script.
"""
import argparse
import math
import random

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(543)  # the example's default --seed
random.seed(543)
gamma, eps = 0.99, 1e-6


class CartPole:
    def reset(self):
        self.s, self.t = [random.uniform(-0.05, 0.05) for _ in range(4)], 0
        return torch.tensor(self.s)

    def step(self, action):
        x, x_dot, th, th_dot = self.s
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(th), math.sin(th)
        temp = (force + 0.05 * th_dot ** 2 * sin) / 1.1
        th_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * th_acc * cos / 1.1
        self.s = [x + 0.02 * x_dot, x_dot + 0.02 * x_acc, th + 0.02 * th_dot, th_dot + 0.02 * th_acc]
        self.t += 1
        done = abs(self.s[0]) > 2.4 or abs(self.s[2]) > 0.2095 or self.t >= 200
        return torch.tensor(self.s), 1.0, done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.action_head = nn.Linear(128, 2)
        self.value_head = nn.Linear(128, 1)

    def forward(self, x):
        x = F.relu(self.affine1(x))
        return F.softmax(self.action_head(x), dim=-1), self.value_head(x)


model = Policy()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
env = CartPole()

for step in range(args.steps):
    state, saved, rewards, done = env.reset(), [], [], False
    while not done:
        probs, value = model(state)
        m = Categorical(probs)
        action = m.sample()
        saved.append((m.log_prob(action), value))
        state, reward, done = env.step(action.item())
        rewards.append(reward)
    R, returns = 0.0, []
    for r in reversed(rewards):
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_losses, value_losses = [], []
    for (log_prob, value), R in zip(saved, returns):
        policy_losses.append(-log_prob * (R - value.item()))
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f} episode_len {len(rewards)}")
