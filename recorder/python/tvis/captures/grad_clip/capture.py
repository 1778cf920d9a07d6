"""Gradient clipping: each ``torch.nn.utils.clip_grad_norm_`` call of a
recorded step as a GradClipRecord (the norm of the gradients it was given,
its max_norm and norm_type, how many parameters had a gradient, the line of
the project's code that led to it). The Loss page draws them.

Libraries that compute the norm themselves and clip with
``torch.nn.utils.clip_grads_with_norm_(parameters, max_norm, total_norm)``
(accelerate, so the Hugging Face Trainer) are recorded from that call: its
norm_type is not given to it, so it is recorded as nan (unknown). A norm
FSDP2 returns unreduced (a DTensor not replicated) is not read, since
reading it would add a collective: a notice says so.

The wrapper calls the original with the caller's arguments and returns its
result unchanged. A generator of parameters is turned into a list first
(the original does the same), so it is walked once, as before. The returned
norm is read at the step's end, once per call, not inside the call: on a GPU
that read waits for the step's work, which the step's end waits for anyway.
"""
import functools
import importlib
import os
import sys

import torch

from ... import records

_OWNERS = ("torch.nn.utils", "torch.nn.utils.clip_grad")  # where user code and libraries find it


class GradClip:
    """Subscriber (hook_bus): install wraps clip_grad_norm_; on_step_end
    writes the step's calls."""

    def __init__(self, ctx):
        self._ctx = ctx
        self._calls = []  # (step, max_norm, norm_type, returned norm tensor, parameters, call site)

    def install(self):
        for name in _OWNERS:
            owner = importlib.import_module(name)
            if hasattr(owner, "clip_grad_norm_"):
                self._ctx.patch(owner, "clip_grad_norm_", self._wrap)
        # torch >= 2.6's public half of it (clip_grad_norm_ itself calls the private one, not this name)
        if hasattr(torch.nn.utils, "clip_grads_with_norm_"):
            self._ctx.patch(torch.nn.utils, "clip_grads_with_norm_", self._wrap_with_norm)

    def _wrap(self, orig):
        capture = self

        @functools.wraps(orig)
        def clip_grad_norm_(parameters, max_norm, norm_type=2.0, *args, **kwargs):
            if not capture._ctx.active:
                return orig(parameters, max_norm, norm_type, *args, **kwargs)
            if not isinstance(parameters, torch.Tensor):
                parameters = list(parameters)
            total = orig(parameters, max_norm, norm_type, *args, **kwargs)
            capture._seen(parameters, max_norm, norm_type, total, sys._getframe(1))
            return total

        return clip_grad_norm_

    def _wrap_with_norm(self, orig):
        capture = self

        @functools.wraps(orig)
        def clip_grads_with_norm_(parameters, max_norm, total_norm, *args, **kwargs):
            if not capture._ctx.active:
                return orig(parameters, max_norm, total_norm, *args, **kwargs)
            if not isinstance(parameters, torch.Tensor):
                parameters = list(parameters)
            result = orig(parameters, max_norm, total_norm, *args, **kwargs)
            if not isinstance(total_norm, torch.Tensor):
                total_norm = torch.tensor(float(total_norm), dtype=torch.float64)
            capture._seen(parameters, max_norm, float("nan"), total_norm, sys._getframe(1))
            return result

        return clip_grads_with_norm_

    def _seen(self, parameters, max_norm, norm_type, total, frame):
        params = [parameters] if isinstance(parameters, torch.Tensor) else parameters
        with_grad = sum(1 for p in params if isinstance(p, torch.Tensor) and p.grad is not None)
        if not isinstance(total, torch.Tensor):
            return  # not torch's (a library's own clip under the same name): nothing to read
        if hasattr(total, "placements"):  # a DTensor (FSDP2): its value on this rank may be partial
            if not all(type(p).__name__ == "Replicate" for p in total.placements):
                self._ctx.notice("grad_clip_sharded", "clip_grad_norm_ returned a sharded norm (FSDP2): its "
                                 "calls are not recorded, since reading the whole norm takes a collective")
                return
            total = total.to_local()
        self._calls.append((self._ctx.step, float(max_norm), float(norm_type), total.detach(), with_grad,
                            self._site(frame)))

    def _site(self, frame):
        """The innermost caller in the project's code ("train.py:57"), else
        the direct caller's file name and line (a library's)."""
        f = frame
        while f is not None and not self._ctx.project_files.contains(f.f_code.co_filename):
            f = f.f_back
        f = f or frame
        path = os.path.abspath(f.f_code.co_filename)
        root = self._ctx.project_dir
        shown = os.path.relpath(path, root) if root and path.startswith(root.rstrip(os.sep) + os.sep) \
            else os.path.basename(path)
        return "%s:%d" % (shown, f.f_lineno)

    def on_step_end(self, step):
        self._write()

    def finalize(self):
        self._write()

    def _write(self):
        calls, self._calls = self._calls, []
        for step, max_norm, norm_type, total, with_grad, site in calls:
            self._ctx.add_record("GradClipRecord", records.grad_clip_record(
                step=step, max_norm=max_norm, norm_type=norm_type, total_norm=float(total),
                parameters=with_grad, call_site=site))


def attach(ctx):
    return GradClip(ctx)
