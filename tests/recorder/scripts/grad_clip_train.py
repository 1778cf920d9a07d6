"""An MLP trained with gradient clipping, as users write it: a generator of
parameters, max_norm 1.0 (clipped at the first steps, where the gradients
are large), and with --inf-at K a non-finite gradient at step K (an inf input
row), which clip_grad_norm_ reports as a non-finite norm; the optimizer
step is then skipped, as users guard it. Each step prints its loss and the
norm clip_grad_norm_ returned (repr; 0.0 with --no-clip), so a recorded run can be held to the
script's own numbers.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--inf-at", type=int, default=-1)
    ap.add_argument("--norm-type", type=float, default=2.0)
    ap.add_argument("--no-clip", action="store_true")
    args = ap.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for step in range(args.steps):
        x = torch.randn(8, 16) * 4
        if step == args.inf_at:
            x[0, 0] = float("inf")
        y = torch.randint(0, 4, (8,))
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if args.no_clip:
            norm = torch.zeros(())
        else:
            norm = torch.nn.utils.clip_grad_norm_((p for p in model.parameters()), max_norm=1.0,
                                                  norm_type=args.norm_type)
        opt.step()
        print("step %d loss %r norm %r" % (step, loss.item(), norm.item()))


if __name__ == "__main__":
    main()
