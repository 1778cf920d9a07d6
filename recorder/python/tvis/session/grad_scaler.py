"""Mixed precision's GradScaler inside a recorded step (docs/cli.md "Mixed
precision").

``scaler.scale(loss).backward()`` makes every gradient of the backward the
true one times the scale; ``scaler.step(optimizer)`` unscales the
parameters' ``.grad`` in place and then calls ``optimizer.step()``, unless a
gradient is inf or NaN: then it skips the update, and ``scaler.update()``
lowers the scale.

Wrapping ``GradScaler.step`` (torch.amp's, whose subclass torch.cuda.amp's
inherits it; torch 1.13 has only the latter), this records:

- on each optimizer step the scaler let through, the scale its backward's
  gradients carry (OptimizerStepRecord.grad_scale); the parameters' Grad
  records, read inside optimizer.step(), are unscaled by then;
- a step the scaler skipped as an OptimizerStep event of its own, flagged
  ``skipped``, with each parameter's weight and (unscaled, non-finite)
  gradient and no update: the iteration is a step like any other.

The wrapper reads the scale with ``get_scale()``, which changes nothing, and
calls the scaler's own step with the caller's arguments.
"""
import functools

import torch


def _grad_scaler_class():
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        return amp.GradScaler
    cuda_amp = getattr(getattr(torch, "cuda", None), "amp", None)
    return getattr(cuda_amp, "GradScaler", None)


class GradScalerProbe:
    """Subscriber (hook_bus): install wraps GradScaler.step. While it runs,
    ``session.grad_scale`` is the scale (0 outside scaler.step), which the
    session writes into each OptimizerStepRecord."""

    def __init__(self, session):
        self._session = session

    def install(self):
        cls = _grad_scaler_class()
        if cls is not None:
            self._session._patch(cls, "step", self._wrap_step)

    def _wrap_step(self, orig):
        probe = self

        @functools.wraps(orig)
        def step(scaler, optimizer, *args, **kwargs):
            session = probe._session
            if not session.active or session._step_depth or not scaler.is_enabled():
                return orig(scaler, optimizer, *args, **kwargs)
            session.grad_scale = float(scaler.get_scale())
            taken = session.optimizer_steps_taken
            try:
                result = orig(scaler, optimizer, *args, **kwargs)
            finally:
                scale, session.grad_scale = session.grad_scale, 0.0
            if session.active and session.optimizer_steps_taken == taken:
                session.skipped_step(optimizer, scale)
            return result

        return step


def attach(session):
    return GradScalerProbe(session)
