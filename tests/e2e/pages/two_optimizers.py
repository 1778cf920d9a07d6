"""A GAN-shaped run with two optimizers: each iteration the discriminator
takes two backward() calls (real, then fake) and one Adam step, then the
generator one backward() and one SGD step, so a recorded step holds
several loss records. The losses are binary_cross_entropy_with_logits (not
analysed per sample). Saves (argv[1]) every backward's value, in order,
and per iteration the weight / gradient / update statistics of D's
parameters around Adam's step and G's around SGD's (reference.py), named
as the recorder names them ("D.0.weight", "G.2.bias"), and both lrs."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import reference as ref


LR = {"D": 1e-3, "G": 1e-2}


def stepped(prefix, model, opt):
    """opt.step() on `model`; its parameters' statistics for that step."""
    named = [(prefix + n, p) for n, p in model.named_parameters()]
    before = {n: p.detach().clone() for n, p in named}
    grads = {n: p.grad.detach().clone() for n, p in named if p.grad is not None}
    opt.step()
    return ref.param_stats(named, before, grads)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else ""
    torch.manual_seed(2)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_d = torch.optim.Adam(D.parameters(), lr=LR["D"])
    opt_g = torch.optim.SGD(G.parameters(), lr=LR["G"])
    real = torch.randn(64, 8) + 2
    saved = {"backwards": [], "params": {}, "lr": LR}
    for it in range(3):
        xb = real[it * 16:(it + 1) * 16]
        z = torch.randn(16, 4)
        opt_d.zero_grad()
        d_real = F.binary_cross_entropy_with_logits(D(xb), torch.ones(16, 1))
        d_real.backward()
        d_fake = F.binary_cross_entropy_with_logits(D(G(z).detach()), torch.zeros(16, 1))
        d_fake.backward()
        saved["backwards"] += [float(d_real.item()), float(d_fake.item())]
        saved["params"][it] = stepped("D.", D, opt_d)
        opt_g.zero_grad()
        g_loss = F.binary_cross_entropy_with_logits(D(G(z)), torch.ones(16, 1))
        g_loss.backward()
        saved["backwards"].append(float(g_loss.item()))
        saved["params"][it].update(stepped("G.", G, opt_g))
        if out:
            torch.save(saved, out)
        print("step %d loss %r" % (it, g_loss.item()), flush=True)


if __name__ == "__main__":
    main()
