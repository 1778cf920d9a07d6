"""A hand-written binary cross-entropy on a linear output: log of a negative number.

Bug (--bug): a click-through model writes its own BCE,
-(y*log(p) + (1-y)*log(1-p)), to add per-sample weights, but the model's
last layer is a plain nn.Linear: "p" is a logit, not a probability, so it is
negative or above 1 for many samples and torch.log returns NaN. The loss is
NaN from the first step and the NaN gradients poison every weight
(pytorch forums "custom BCE loss returns nan", "log of negative number").
Twin: p = sigmoid(logit), clamped away from 0 and 1.
"""
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
USERS, ITEMS, DIM = 300, 200, 16


class CTRModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(USERS, DIM)
        self.item = nn.Embedding(ITEMS, DIM)
        self.mlp = nn.Sequential(nn.Linear(3 * DIM, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, u, i):
        eu, ei = self.user(u), self.item(i)
        return self.mlp(torch.cat([eu, ei, eu * ei], 1)).squeeze(1)


def weighted_bce(p, y, w):
    return (w * -(y * torch.log(p) + (1 - y) * torch.log(1 - p))).mean()


model = CTRModel()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
true_u, true_i = torch.randn(USERS, 4), torch.randn(ITEMS, 4)

for step in range(args.steps):
    u, i = torch.randint(0, USERS, (256,)), torch.randint(0, ITEMS, (256,))
    y = (torch.sigmoid((true_u[u] * true_i[i]).sum(1) - 1) > torch.rand(256)).float()
    weight = torch.where(y > 0, 3.0, 1.0)  # up-weight the rare clicks
    out = model(u, i)
    p = out if args.bug else torch.sigmoid(out).clamp(1e-6, 1 - 1e-6)
    loss = weighted_bce(p, y, weight)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
