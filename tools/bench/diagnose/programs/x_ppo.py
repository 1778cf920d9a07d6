"""PPO with the clipped surrogate on a small gridworld written in the script.

Held-out healthy program. Mirrors CleanRL's ppo.py shape: separate actor and
critic MLPs (tanh, orthogonal init, small-gain policy head), 8 parallel
environments stepped 32 steps per rollout, GAE(0.99, 0.95), 4 epochs of 4
minibatches per rollout with per-minibatch normalised advantages, ratio
clipping at 0.2, value loss 0.5, entropy bonus 0.01, clip_grad_norm_ 0.5,
Adam lr 3e-4 eps 1e-5. The environment: a 5x5 grid, reach the far corner
(+1), -0.01 per move, 40-step time limit.
"""
import argparse

import torch
from torch import nn
from torch.distributions import Categorical

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(1)
N_ENV, T, EPOCHS, MB, GAMMA, LAM, CLIP = 8, 32, 4, 4, 0.99, 0.95, 0.2
MOVES = torch.tensor([[0, 1], [0, -1], [1, 0], [-1, 0]])


class Grid:
    def __init__(self):
        self.pos, self.t = torch.randint(0, 5, (N_ENV, 2)), torch.zeros(N_ENV)

    def obs(self):
        return nn.functional.one_hot(self.pos[:, 0] * 5 + self.pos[:, 1], 25).float()

    def step(self, a):
        self.pos, self.t = (self.pos + MOVES[a]).clamp(0, 4), self.t + 1
        goal = (self.pos == 4).all(1)
        done = goal | (self.t >= 40)
        self.pos[done], self.t[done] = torch.randint(0, 5, (int(done.sum()), 2)), 0
        return torch.where(goal, 1.0, -0.01), done.float()


def mlp(out, gain):
    net = nn.Sequential(nn.Linear(25, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, out))
    for m, g in zip(net[::2], (2 ** 0.5, 2 ** 0.5, gain)):
        nn.init.orthogonal_(m.weight, g)
        nn.init.zeros_(m.bias)
    return net


actor, critic = mlp(4, 0.01), mlp(1, 1.0)
params = list(actor.parameters()) + list(critic.parameters())
optimizer = torch.optim.Adam(params, lr=3e-4, eps=1e-5)
env, step = Grid(), 0
while step < args.steps:
    obs, acts, logps, rews, dones, vals = [], [], [], [], [], []
    with torch.no_grad():
        for _ in range(T):
            dist = Categorical(logits=actor(o := env.obs()))
            r, d = env.step(a := dist.sample())
            for buf, x in zip((obs, acts, logps, rews, dones, vals), (o, a, dist.log_prob(a), r, d, critic(o)[:, 0])):
                buf.append(x)
        next_v, adv, gae = critic(env.obs())[:, 0], torch.zeros(T, N_ENV), 0
        for t in reversed(range(T)):
            delta = rews[t] + GAMMA * (next_v if t == T - 1 else vals[t + 1]) * (1 - dones[t]) - vals[t]
            adv[t] = gae = delta + GAMMA * LAM * (1 - dones[t]) * gae
        b_ret = (adv + torch.stack(vals)).flatten()
    b_obs, b_act, b_logp, b_adv = torch.cat(obs), torch.cat(acts), torch.cat(logps), adv.flatten()
    minibatches = [idx for _ in range(EPOCHS) for idx in torch.randperm(T * N_ENV).chunk(MB)]
    for idx in minibatches[:args.steps - step]:
        dist = Categorical(logits=actor(b_obs[idx]))
        ratio = (dist.log_prob(b_act[idx]) - b_logp[idx]).exp()
        a = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
        pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - CLIP, 1 + CLIP)).mean()
        v_loss = 0.5 * ((critic(b_obs[idx])[:, 0] - b_ret[idx]) ** 2).mean()
        loss = pg_loss + 0.5 * v_loss - 0.01 * dist.entropy().mean()
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 0.5)
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f} rollout reward {torch.stack(rews).sum(0).mean().item():.3f}")
        step += 1
