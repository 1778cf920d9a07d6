"""Shared by the fidelity scripts (imported as a sibling module, which is
itself part of what the tests check): argument parsing, per-step output and
weight dumps.

Each script prints, after every optimizer step, one line
    step <k> loss <repr(loss.item())> weights <sha256 of all parameters>
and with --dump DIR saves the parameters before training (w_init.pt) and
after each step k (w_step<k>.pt), and each step's gradients (g_step<k>.pt:
the .grad of every parameter that has one when the step is reported).
"""
import argparse
import hashlib
import os

import torch


def parse(extra=None):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--dump", default="")
    p.add_argument("--seed", type=int, default=0)
    if extra:
        extra(p)
    return p.parse_args()


def digest(*models):
    """sha256 of every parameter of `models`, in order (a GAN passes D and G)."""
    h = hashlib.sha256()
    for model in models:
        for name, p in model.named_parameters():
            h.update(name.encode())
            h.update(p.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:32]


def dump(args, model, tag):
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        torch.save({n: p.detach().clone() for n, p in model.named_parameters()}, os.path.join(args.dump, tag + ".pt"))


def dump_grads(args, named_params, tag):
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        torch.save({n: p.grad.detach().clone() for n, p in named_params if p.grad is not None},
                   os.path.join(args.dump, tag + ".pt"))


def report(args, model, step, loss):
    print("step %d loss %r weights %s" % (step, loss.item(), digest(model)), flush=True)
    dump(args, model, "w_step%d" % step)
    if any(p.grad is not None for p in model.parameters()):  # else the script dumped them before its update
        dump_grads(args, model.named_parameters(), "g_step%d" % step)
