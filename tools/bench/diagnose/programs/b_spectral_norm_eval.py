"""SN-GAN whose discriminator is evaluated before its first training forward.

Bug (--bug): the discriminator uses torch.nn.utils.spectral_norm (the old
hook API). Its power-iteration vectors u, v start random and are updated only
by forwards in training mode; in eval mode the hook divides the weight by
u^T W v with whatever u, v hold. The script logs D's score on held-out real
data under model.eval() + no_grad at the top of each logging step, so the
first evaluation runs before any training forward: each layer is divided by
a random projection instead of its spectral norm and the outputs are orders
of magnitude off (pytorch/pytorch issues on spectral_norm in eval mode before
training; users see absurd validation scores at step 0).
Twin: the evaluation runs after the training step, as a logging hook would.
"""
import argparse

import torch
import torch.nn as nn
from torch.nn.utils import spectral_norm

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(16, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 2))
D = nn.Sequential(spectral_norm(nn.Linear(2, 256)), nn.LeakyReLU(0.2),
                  spectral_norm(nn.Linear(256, 256)), nn.LeakyReLU(0.2),
                  spectral_norm(nn.Linear(256, 256)), nn.LeakyReLU(0.2),
                  spectral_norm(nn.Linear(256, 1)))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()


def real_batch(n):  # a ring of 8 Gaussians
    angle = torch.randint(0, 8, (n,)) * (torch.pi / 4)
    return torch.stack([angle.cos(), angle.sin()], 1) * 2 + 0.05 * torch.randn(n, 2)


held_out = real_batch(256)


def evaluate():
    D.eval()
    with torch.no_grad():
        score = D(held_out).mean().item()
    D.train()
    return score


for step in range(args.steps):
    score = evaluate() if args.bug and step % 5 == 0 else None
    real, z = real_batch(64), torch.randn(64, 16)
    with torch.no_grad():
        fake = G(z)
    d_loss = bce(D(real), torch.ones(64, 1)) + bce(D(fake), torch.zeros(64, 1))
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(D(G(z)), torch.ones(64, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    if not args.bug and step % 5 == 0:
        score = evaluate()
    shown = "" if score is None else f" D(real) {score:.4f}"
    print(f"step {step} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f}{shown}")
