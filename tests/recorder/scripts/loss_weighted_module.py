"""Classification with a class-weighted nn.CrossEntropyLoss module. Prints
each step's loss and the per-sample weighted losses of the first 4 rows
(reduction='none' with the same weights), which the recorded loss
analysis must give too.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0]))
    for step in range(args.steps):
        x, y = torch.randn(8, 16), torch.randint(0, 5, (8,))
        logits = model(x)
        loss = crit(logits, y)
        with torch.no_grad():
            per = F.cross_entropy(logits.double(), y, weight=crit.weight.double(), reduction="none")[:4]
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.8f" % (step, loss.item()), flush=True)
        print("per_sample %d %s" % (step, " ".join(repr(float(v)) for v in per)), flush=True)


if __name__ == "__main__":
    main()
