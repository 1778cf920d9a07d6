"""No torch.optim: a hand-written SGD update after each backward (under
tvis each backward is then a step). Saves (argv[1]) the losses and each
parameter's weight / gradient / update statistics (reference.py)."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import reference as ref


LR = 0.1  # the hand-written SGD's step size


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else ""
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 3))
    saved = {"losses": [], "params": {}, "lr": LR}
    for step in range(4):
        x, y = torch.randn(16, 6), torch.randint(0, 3, (16,))
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        before = {n: p.detach().clone() for n, p in model.named_parameters()}
        grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
        with torch.no_grad():
            for p in model.parameters():
                p -= LR * p.grad
                p.grad = None
        saved["losses"].append(float(loss.detach().reshape(-1)[0].item()))
        saved["params"][step] = ref.param_stats(model.named_parameters(), before, grads)
        saved["steps"] = step + 1
        ref.save(out, saved)
        print("step %d loss %r" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
