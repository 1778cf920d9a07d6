"""No nn.Module and no torch.optim: raw leaf tensors and a hand-written update.

Prints, per step, the loss and a digest of every parameter (as the other
fidelity scripts do); --dump saves the parameters and the gradients (taken
before the update clears them)."""
import hashlib
import os

import torch

from fidelity_util import dump_grads, parse

args = parse()
torch.manual_seed(args.seed)
w1 = (torch.randn(10, 16) * 0.3).requires_grad_()
b1 = torch.zeros(16, requires_grad=True)
w2 = (torch.randn(16, 3) * 0.3).requires_grad_()
params = {"w1": w1, "b1": b1, "w2": w2}


def digest():
    h = hashlib.sha256()
    for name, p in params.items():
        h.update(name.encode())
        h.update(p.detach().contiguous().numpy().tobytes())
    return h.hexdigest()[:32]


def dump(tag):
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        torch.save({k: v.detach().clone() for k, v in params.items()}, os.path.join(args.dump, tag + ".pt"))


dump("w_init")
for step in range(args.steps):
    x = torch.randn(32, 10)
    y = torch.randint(0, 3, (32,))
    loss = torch.nn.functional.cross_entropy(torch.tanh(x @ w1 + b1) @ w2, y)
    loss.backward()
    dump_grads(args, params.items(), "g_step%d" % step)
    with torch.no_grad():
        for p in params.values():
            p -= 0.5 * p.grad
            p.grad = None
    print("step %d loss %r weights %s" % (step, loss.item(), digest()), flush=True)
    dump("w_step%d" % step)
