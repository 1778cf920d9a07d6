"""SimCLR-style contrastive pre-training with a hand-written NT-Xent loss, AdamW.

Held-out healthy program. Mirrors SimCLR (Chen et al. 2020) as in
sthalles/SimCLR and most tutorials: two augmented views of each sample
(here: additive noise, random feature dropout and scaling of a synthetic
clustered 64-d input), an MLP encoder with BatchNorm, a 2-layer projection
head, L2-normalised projections, the 2N x 2N cosine-similarity matrix over
temperature 0.5 with the diagonal masked out, cross entropy against each
view's partner; AdamW lr 1e-3, weight decay 1e-4.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)
TAU = 0.5

centers = 2.0 * torch.randn(20, 64)
def augment(x):
    keep = (torch.rand_like(x) > 0.2).float()
    return (x * keep / 0.8 + 0.3 * torch.randn_like(x)) * torch.empty(len(x), 1).uniform_(0.8, 1.2)


def nt_xent(z1, z2, tau=TAU):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = len(z1)
    sim = z @ z.T / tau
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(n)])
    return F.cross_entropy(sim, targets)


encoder = nn.Sequential(nn.Linear(64, 256), nn.BatchNorm1d(256), nn.ReLU(),
                        nn.Linear(256, 128), nn.BatchNorm1d(128), nn.ReLU())
projector = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 32))
model = nn.Sequential(encoder, projector)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
model.train()
for step in range(args.steps):
    x = centers[torch.randint(0, 20, (128,))] + torch.randn(128, 64)
    z1, z2 = model(augment(x)), model(augment(x))
    loss = nt_xent(z1, z2)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
