"""A tiny DDPM on 2-D points: an MLP noise predictor with a timestep embedding.

Mirrors the DDPM training objective (Ho et al. 2020, as in diffusers'
training scripts): sample t uniformly, noise the data with a linear beta
schedule, x_t = sqrt(abar_t) x_0 + sqrt(1 - abar_t) eps, and regress the
predicted noise onto eps with MSE. The loss stays noisy (t is random) and
sits well above zero: the noise is only partly predictable.
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

T = 1000


def timestep_embedding(t, dim=32):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.sin(args), torch.cos(args)], dim=1)


class NoisePredictor(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.t_mlp = nn.Sequential(nn.Linear(32, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.inp = nn.Linear(2, hidden)
        self.body = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 2))

    def forward(self, x, t):
        return self.body(self.inp(x) + self.t_mlp(timestep_embedding(t)))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    # Data: a ring of 8 Gaussians, scaled to unit-ish variance.
    angles = torch.randint(0, 8, (4096,)) * (2 * math.pi / 8)
    data = torch.stack([angles.cos(), angles.sin()], dim=1) + 0.05 * torch.randn(4096, 2)
    betas = torch.linspace(1e-4, 0.02, T)
    alpha_bar = torch.cumprod(1.0 - betas, dim=0)

    model = NoisePredictor()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(args.steps):
        x0 = data[torch.randint(0, len(data), (256,))]
        t = torch.randint(0, T, (256,))
        noise = torch.randn_like(x0)
        ab = alpha_bar[t][:, None]
        xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
        loss = F.mse_loss(model(xt, t), noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
