"""A small classifier trained on synthetic data, healthy by default; each
--bug plants one mistake `tvis diagnose` must name (tests/recorder/test_diagnose.py).
The healthy run and every buggy one have the same shape: a DataLoader of
12-feature rows, a stack of --depth Linear layers, dropout before the head,
cross_entropy (--accumulate N: N backwards of a split batch per step), SGD,
and after each step an evaluation of the batch under
no_grad (model.eval(), then model.train())."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

BUGS = ("none", "nan_layer", "vanishing", "exploding", "lr", "lr0_group", "unused", "softmax", "one_class",
        "raw_inputs", "same_batch", "eval_mode", "train_eval",
        "no_zero_grad", "dead_relu", "not_in_optimizer", "rising", "loss_nan", "nan_input", "sum_divisor",
        "target_range", "undivided")

# The learning rate of each bug that is one; 0.05 trains. "rising": the loss
# grows tenfold a step (1.53, 24.7, 133, ...) yet stays finite for four steps;
# "loss_nan": it overflows to NaN by the third step (the same on torch 1.13 and 2.x).
LEARNING_RATES = {"lr": 50.0, "rising": 3.0, "loss_nan": 1e4}

# "sum_divisor": the summed loss of a batch of 32 divided by 4 (the divisor
# meant for accumulation), not by the batch: every step is 8 times too large.
SUM_DIVISOR = 4


class LogOfShifted(nn.Module):
    """log(x - shift): NaN from finite inputs once x < shift (the planted NaN)."""

    def __init__(self, shift):
        super().__init__()
        self.shift = shift

    def forward(self, x):
        return torch.log(x - self.shift + 1.0)


class Net(nn.Module):
    def __init__(self, depth, width, bug):
        super().__init__()
        layers = [nn.Linear(12, width)]
        for _ in range(depth - 2):
            layers.append(nn.Linear(width, width))
        self.hidden = nn.ModuleList(layers)
        self.act = nn.Sigmoid() if bug == "vanishing" else (nn.Identity() if bug == "exploding" else nn.ReLU())
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(width, 4)
        self.spare = nn.Linear(width, 4) if bug == "unused" else None  # held by the optimizer, never called
        self.broken = LogOfShifted(10.0) if bug == "nan_layer" else None
        for lin in self.hidden:
            if bug == "exploding":
                nn.init.orthogonal_(lin.weight, gain=3.0)
            elif bug == "vanishing":
                nn.init.normal_(lin.weight, std=0.3 / width ** 0.5)
            else:
                nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
            nn.init.zeros_(lin.bias)
        if bug == "dead_relu":  # the first layer's units are off for almost every input
            nn.init.constant_(self.hidden[0].bias, -4.0)

    def forward(self, x):
        for i, lin in enumerate(self.hidden):
            x = self.act(lin(x))
            if self.broken is not None and i == 1:
                x = self.broken(x)
        return self.head(self.drop(x))


def evaluate(model, xb, bug):
    """An evaluation of the batch: model.eval() first (train_eval forgets it),
    model.train() after (eval_mode forgets it: later steps train in eval mode)."""
    if bug != "train_eval":
        model.eval()
    with torch.no_grad():
        model(xb[:8])
    if bug != "eval_mode":
        model.train()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bug", choices=BUGS, default="none")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--accumulate", type=int, default=1, help="backwards per optimizer step (healthy accumulation)")
    args = ap.parse_args()
    if args.bug == "undivided":  # accumulation over 4 backwards, each loss left undivided
        args.accumulate = 4
    torch.manual_seed(0)
    n, width = 256, 32
    x = torch.randn(n, 12)
    y = (x[:, :4].argmax(dim=1))  # learnable: the largest of the first four features
    if args.bug == "raw_inputs":
        x = (x * 40 + 128).clamp(0, 255).round()
    if args.bug == "target_range":  # labels of 5 classes for a head of 4: cross_entropy raises at step 0
        y = x[:, :5].argmax(dim=1)
    if args.bug == "one_class":
        y = torch.zeros(n, dtype=torch.long)
    if args.bug == "nan_input":  # a missing value in every fourth row: every batch holds some
        x[::4, 5] = float("nan")
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = Net(args.depth, width, args.bug)
    lr = LEARNING_RATES.get(args.bug, 0.05)
    if args.bug == "lr0_group":
        groups = [{"params": model.hidden.parameters()}, {"params": model.head.parameters(), "lr": 0.0}]
    elif args.bug == "not_in_optimizer":
        groups = [{"params": model.hidden.parameters()}]  # the head gets gradients nothing applies
    else:
        groups = [{"params": model.parameters()}]
    opt = torch.optim.SGD(groups, lr=lr)
    step = 0
    while step < args.steps:
        batches = [next(iter(DataLoader(TensorDataset(x, y), batch_size=32)))] if args.bug == "same_batch" else loader
        for xb, yb in batches:
            if args.bug != "no_zero_grad":
                opt.zero_grad()
            total = 0.0
            for xc, yc in zip(xb.chunk(args.accumulate), yb.chunk(args.accumulate)):
                logits = model(xc)
                if args.bug == "softmax":
                    loss = F.cross_entropy(F.softmax(logits, dim=1), yc)
                elif args.bug == "sum_divisor":
                    loss = F.cross_entropy(logits, yc, reduction="sum") / SUM_DIVISOR
                else:
                    loss = F.cross_entropy(logits, yc)
                if args.accumulate > 1 and args.bug != "undivided":
                    loss = loss / args.accumulate
                loss.backward()
                total += loss.item()
            opt.step()
            evaluate(model, xb, args.bug)
            print("step %d loss %.6f" % (step, total), flush=True)
            step += 1
            if step >= args.steps:
                break


if __name__ == "__main__":
    main()
