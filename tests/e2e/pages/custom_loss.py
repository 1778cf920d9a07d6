"""Losses the recorder cannot analyse as one call. argv[2] picks the loss:

  mse     a hand-written regression loss ((out - y) ** 2).mean(); an
          F.l1_loss computed beside it for logging (with autograd) is not
          the loss backward() runs on, so no recognised call fed it
  ce_reg  F.cross_entropy plus 0.01 * a weight norm (a composite loss): the
          call fed the loss but is not all of it

Saves (argv[1]) every step's loss value, the kind, the line of the
cross_entropy call (ce_reg) and that call's per-sample rows (reference.py),
which the Loss page must show as the call's, not the whole loss's.
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import reference as ref


def call_line(marker):
    """The line of this file holding `marker` (the call's line, as recorded)."""
    with open(__file__) as f:
        for n, text in enumerate(f, 1):
            if marker in text and "call_line(" not in text:
                return n
    raise SystemExit("custom_loss.py: no line holds " + marker)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else ""
    kind = sys.argv[2] if len(sys.argv) > 2 else "mse"
    if kind not in ("mse", "ce_reg"):
        raise SystemExit("custom_loss.py: kind must be mse or ce_reg, not %r" % kind)
    torch.manual_seed(5)
    model = nn.Linear(6, 4 if kind == "ce_reg" else 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    saved = {"kind": kind, "losses": [], "samples": {}, "ce_line": call_line("# the CE call")}
    for step in range(4):
        x = torch.randn(12, 6)
        opt.zero_grad()
        logits = model(x)
        if kind == "mse":
            y = torch.randn(12, 1)
            loss = ((logits - y) ** 2).mean()
            mae = F.l1_loss(logits, y)  # logged, never backpropagated
        else:
            y = torch.randint(0, 4, (12,))
            ce = F.cross_entropy(logits, y)  # the CE call
            loss = ce + 0.01 * model.weight.norm()
            saved["samples"][step] = ref.per_sample(logits, y, step)
        loss.backward()
        opt.step()
        saved["losses"].append(float(loss.detach().reshape(-1)[0].item()))
        saved["steps"] = step + 1
        ref.save(out, saved)
        print("step %d loss %r%s" % (step, loss.item(), " mae %r" % mae.item() if kind == "mse" else ""), flush=True)


if __name__ == "__main__":
    main()
