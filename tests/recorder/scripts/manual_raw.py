"""No nn.Module and no torch.optim: raw leaf tensors and a hand-written update."""
import torch

from fidelity_util import parse

args = parse()
torch.manual_seed(args.seed)
w1 = (torch.randn(10, 16) * 0.3).requires_grad_()
b1 = torch.zeros(16, requires_grad=True)
w2 = (torch.randn(16, 3) * 0.3).requires_grad_()
params = {"w1": w1, "b1": b1, "w2": w2}
if args.dump:
    import os
    os.makedirs(args.dump, exist_ok=True)
    torch.save({k: v.detach().clone() for k, v in params.items()}, os.path.join(args.dump, "w_init.pt"))
for step in range(args.steps):
    x = torch.randn(32, 10)
    y = torch.randint(0, 3, (32,))
    loss = torch.nn.functional.cross_entropy(torch.tanh(x @ w1 + b1) @ w2, y)
    loss.backward()
    with torch.no_grad():
        for p in params.values():
            p -= 0.5 * p.grad
            p.grad = None
    print("step %d loss %r w2sum %r" % (step, loss.item(), w2.sum().item()), flush=True)
    if args.dump:
        torch.save({k: v.detach().clone() for k, v in params.items()}, os.path.join(args.dump, "w_step%d.pt" % step))
