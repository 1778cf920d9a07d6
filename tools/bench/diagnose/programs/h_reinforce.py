"""REINFORCE (PyTorch's examples/reinforcement_learning/reinforce.py shape).

Healthy. The example's Policy (Linear-Dropout(0.6)-ReLU-Linear, a
Categorical over its logits), Adam lr 1e-2, returns discounted with gamma
0.99 and normalised, policy loss sum(-log_prob * R), one optimizer step per
episode. The environment is a tiny corridor written in the script instead of
gym: the agent starts in the middle of 12 cells (one-hot state), moves left
or right, gets +1 at the right end and -1 at the left end (0 otherwise); the
episode ends at either end or after 100 moves. The loss rises and falls with
the policy; that is normal for RL.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
CELLS, MAX_MOVES, gamma, eps = 12, 100, 0.99, 1e-6


class Corridor:
    def reset(self):
        self.pos, self.moves = CELLS // 2, 0
        return F.one_hot(torch.tensor(self.pos), CELLS).float()

    def step(self, action):
        self.pos += 1 if action == 1 else -1
        self.moves += 1
        at_goal, at_cliff = self.pos == CELLS - 1, self.pos == 0
        done = at_goal or at_cliff or self.moves >= MAX_MOVES
        reward = 1.0 if at_goal else -1.0 if at_cliff else 0.0
        return F.one_hot(torch.tensor(self.pos), CELLS).float(), reward, done


policy = nn.Sequential(nn.Linear(CELLS, 128), nn.Dropout(p=0.6), nn.ReLU(), nn.Linear(128, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
env = Corridor()

for step in range(args.steps):
    state, log_probs, rewards, done = env.reset(), [], [], False
    while not done:
        m = Categorical(logits=policy(state.unsqueeze(0)))
        action = m.sample()
        log_probs.append(m.log_prob(action))
        state, reward, done = env.step(action.item())
        rewards.append(reward)
    R, returns = 0.0, []
    for r in reversed(rewards):
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = torch.cat([-lp * R for lp, R in zip(log_probs, returns)]).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    optimizer.step()
    print(f"step {step} loss {policy_loss.item():.4f} episode_len {len(rewards)} return {sum(rewards):.2f}")
