"""The focal-loss prior bias applied to every layer: the hidden ReLUs start dead.

Bug (--bug): a multi-label tagger for rare attributes uses the RetinaNet
trick of initialising the output bias to -log((1 - pi) / pi) (pi = 0.01,
about -4.6) so the first predictions match the prior. The init function is
applied with model.apply(), to every nn.Linear, so the hidden layers get a
bias of -4.6 as well: with inputs of unit scale almost every ReLU unit is
negative for every sample, outputs zero and passes no gradient, and the net
trains only its output bias (pytorch forums "dying ReLU after custom init",
"all activations are zero").
Twin: the prior bias is set on the output layer only.
"""
import argparse
import math

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
PRIOR, ATTRIBUTES = 0.01, 12


def prior_init(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.bias, -math.log((1 - PRIOR) / PRIOR))


model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, ATTRIBUTES))
if args.bug:
    model.apply(prior_init)
else:
    prior_init(model[-1])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
criterion = nn.BCEWithLogitsLoss()
directions = torch.randn(64, ATTRIBUTES)

for step in range(args.steps):
    x = torch.randn(128, 64)
    y = ((x @ directions) / 8 > 2.0).float()  # each attribute present in a few % of samples
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
