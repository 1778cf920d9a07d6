"""The subscribers of the session's hook bus, registered in one place.

Each entry is (name, module, kind). The module defines ``attach(target)``
returning the subscriber object, or None to stay out of this run:

- kind "probe": a diagnose probe (``tvis.session.*``), ``target`` is the
  Session itself (probes are part of the recording core);
- kind "capture": an optional capture (``tvis.captures.<name>``), ``target``
  is a ``tvis.session.context.CaptureContext``, the only view of the session
  a capture has.

The bus (``tvis.session.hook_bus``) calls the hooks of every attached
subscriber in this order: the probes first, then the captures (their order is
the order insight records are written in). The hooks are listed in
``hook_bus.HOOKS``.

This module imports nothing: the session reads the list without importing a
capture, and benchmarks read ``capture_names()`` without loading torch.
"""

# The diagnose probes: each adds typed detail to the events of its lifecycle
# point (docs/diagnose.md's checks read it).
PROBES = (
    ("modes", "tvis.session.modes", "probe"),
    ("dead_units", "tvis.session.dead_units", "probe"),
    ("carried_grads", "tvis.session.carried_grads", "probe"),
    ("all_reduce", "tvis.session.all_reduce", "probe"),
    ("unoptimized", "tvis.session.unoptimized", "probe"),
    ("grad_scaler", "tvis.session.grad_scaler", "probe"),
)

# The captures of a run (name, module), in the order their hooks are called
# (recordings depend on it: it is the order insight records are written in).
CAPTURES = (
    ("attention", "tvis.captures.attention.capture"),
    ("embeddings", "tvis.captures.embeddings.capture"),
    ("gradcam", "tvis.captures.gradcam.capture"),
    ("pipeline", "tvis.captures.pipeline.capture"),
    ("grad_clip", "tvis.captures.grad_clip.capture"),
)

SUBSCRIBERS = PROBES + tuple((name, module, "capture") for name, module in CAPTURES)


def capture_names():
    """The capture names, as ``TVIS_CAPTURES_OFF`` takes them."""
    return [name for name, _ in CAPTURES]
