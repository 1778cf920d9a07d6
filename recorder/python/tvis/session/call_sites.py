"""Where a module call came from, read from the frames of torch's module
call (the module pre-hook gets neither the call's keyword arguments nor its
caller). Reading frames changes nothing; ``frame.f_locals`` is read only for
torch's own ``_call_impl`` frames.
"""

import inspect

import torch

# Torch's own frames of a module call, between the caller's line and the hooks: Module.__call__
# (1.13: _call_impl itself; 2.x: _wrapped_call_impl, which calls _call_impl), _call_impl and the
# functions nested in it (2.x runs the hooks in its `inner`, which shares its `args` and `kwargs`).
CALL_CODES = frozenset([torch.nn.Module.__call__.__code__, torch.nn.Module._call_impl.__code__] +
                        [c for c in torch.nn.Module._call_impl.__code__.co_consts if inspect.iscode(c)])


def call_kwargs(frame):
    """The keyword arguments of the module call whose pre-hook runs, read from
    `frame` (the hook's caller) when it is torch's module call (global pre-hooks
    get no kwargs, in 1.13 and 2.x alike); None when it is not (a custom __call__)."""
    return frame.f_locals.get("kwargs") if frame.f_code in CALL_CODES else None


def call_site(frame):
    """The frame of the line that called the module whose hook `frame` runs:
    the first caller past torch's module-call frames (`frame` itself for a
    custom __call__)."""
    site = frame
    while site.f_code in CALL_CODES and site.f_back is not None:
        site = site.f_back
    return site
