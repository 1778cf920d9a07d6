"""Per-module-call cost of reading a call's keyword arguments the way the
session does (the locals of torch's frame that runs the hooks: _call_impl in
1.13, the `inner` nested in it in 2.x; global pre-hooks get no kwargs).

    /usr/bin/python3 tests/recorder/scripts/attn_kwargs_overhead.py
    build/venv/bin/python tests/recorder/scripts/attn_kwargs_overhead.py

Times nn.Identity calls with a global forward pre-hook that only takes the
caller frame (base) and one that also reads its kwargs (kwargs); best of 5
rounds of 200k calls each, alternating.
"""
import inspect
import sys
import time

import torch

CALL_CODES = frozenset([torch.nn.Module.__call__.__code__, torch.nn.Module._call_impl.__code__] +
                       [c for c in torch.nn.Module._call_impl.__code__.co_consts if inspect.iscode(c)])


def pre_base(module, args):
    sys._getframe(1)


def pre_kwargs(module, args):
    f = sys._getframe(1)
    if f.f_code in CALL_CODES:
        f.f_locals.get("kwargs")


def per_call(hook, calls=200_000, rounds=5):
    h = torch.nn.modules.module.register_module_forward_pre_hook(hook)
    m, x = torch.nn.Identity(), torch.ones(1)
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(calls):
            m(x)
        best = min(best, (time.perf_counter() - t) / calls)
    h.remove()
    return best * 1e6


if __name__ == "__main__":
    base = min(per_call(pre_base), per_call(pre_base))
    kw = min(per_call(pre_kwargs), per_call(pre_kwargs))
    print("module call with hook: %.3f us; with kwargs read: %.3f us; overhead %.3f us per call" % (base, kw, kw - base))
