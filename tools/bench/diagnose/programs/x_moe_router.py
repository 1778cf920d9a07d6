"""An MLP classifier with a top-1 mixture-of-experts layer (Switch-style), AdamW + cosine.

Held-out healthy program. Mirrors the Switch Transformer's MoE feed-forward
layer inside a small classifier: a linear router, softmax gate, top-1
expert per token, the expert's output scaled by its gate probability, 8
expert MLPs, the load-balancing auxiliary loss N * sum_i f_i * P_i
(fraction of tokens routed to expert i times its mean router probability)
weighted 0.01 and added to the cross entropy; AdamW lr 1e-3 weight decay
0.01 with CosineAnnealingLR(T_max = the whole run's steps) stepped every
batch. The data: a synthetic 10-class problem whose classes sit on
different input regions (so routing by region helps).
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)
N_EXP, D = 8, 64


class MoE(nn.Module):
    def __init__(self, d, hidden=128):
        super().__init__()
        self.router = nn.Linear(d, N_EXP)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(d, hidden), nn.GELU(), nn.Linear(hidden, d))
                                     for _ in range(N_EXP))

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        gate, expert = probs.max(dim=-1)
        out = torch.zeros_like(x)
        for i, e in enumerate(self.experts):
            sel = expert == i
            if sel.any():
                out[sel] = gate[sel, None] * e(x[sel])
        frac = F.one_hot(expert, N_EXP).float().mean(0)
        aux = N_EXP * (frac * probs.mean(0)).sum()
        return out, aux


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp, self.norm, self.moe, self.head = nn.Linear(32, D), nn.LayerNorm(D), MoE(D), nn.Linear(D, 10)

    def forward(self, x):
        h = F.gelu(self.inp(x))
        y, aux = self.moe(self.norm(h))
        return self.head(h + y), aux


centers, w = 3.0 * torch.randn(10, 32), torch.randn(10, 32, 10)
def batch(size=128):
    region = torch.randint(0, 10, (size,))
    x = centers[region] + torch.randn(size, 32)
    return x, torch.einsum("bi,bio->bo", x - centers[region], w[region]).argmax(1)


model = Classifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.steps)
model.train()
for step in range(args.steps):
    x, y = batch()
    logits, aux = model(x)
    ce = F.cross_entropy(logits, y)
    loss = ce + 0.01 * aux
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"step {step} loss {loss.item():.4f} ce {ce.item():.4f} aux {aux.item():.3f} lr {scheduler.get_last_lr()[0]:.2e}")
