"""Capture extensions: recorders that ride on the session's hooks.

Each capture is a subpackage here, listed in ``CAPTURES`` (name, module):
the module defines ``attach(ctx)``, ``ctx`` a ``tvis.session.context.CaptureContext``
(the only view of the session a capture has), returning an object or None
to stay out of this run. Modules directly in this folder are helpers that
several captures share (``vocabulary``). The session calls each of these
methods on every attached object that defines it, in the order of ``CAPTURES``:

``install()``                                 once, after the session's own hooks
``on_module_pre(module, eid, args, kwargs)`` a module call began (event ``eid`` open;
                                              ``kwargs``: its keyword arguments, {} if none)
``on_module_post(module, eid, args, output)`` it returned (event still open)
``on_fetch(eid, batch)``                      a DataLoader batch was recorded;
                                              ``ctx.followed_rows`` is up to date
``on_backward(loss, loss_info)``              before the user's backward, graph intact
``on_step_end(step)``                         optimizer step ``step`` was written
``finalize()``                                before the run file is closed

Contract: the session's FIDELITY rules hold for captures too (no RNG draws,
no flags, no writes to the user's tensors or ``.grad``). A capture that
raises is switched off for the rest of the run with a notice
(``<name>_failed``); the recording and the script go on. Its ``finalize()``
still runs once, at once, so whatever it patched is put back.

``TVIS_CAPTURES_OFF=name,name`` (read and removed from the environment, for
benchmarks and tests) leaves the named captures out of the run.

Importing this package imports no capture (nor torch): benchmarks read
``names()`` from it.
"""

import importlib
import os
import sys

HOOKS = ("install", "on_module_pre", "on_module_post", "on_fetch", "on_backward", "on_step_end", "finalize")

# The captures of a run, in the order their hooks are called (recordings
# depend on it: it is the order insight records are written in).
CAPTURES = (
    ("attention", "tvis.captures.attention.capture"),
    ("embeddings", "tvis.captures.embeddings.capture"),
    ("gradcam", "tvis.captures.gradcam.capture"),
    ("pipeline", "tvis.captures.pipeline.capture"),
)


def names():
    """The capture names, as ``TVIS_CAPTURES_OFF`` takes them."""
    return [name for name, _ in CAPTURES]


class Extensions:
    """The attached captures and the dispatch of the session's hooks to them.

    ``notice(code, message)`` records a run notice (the session's);
    ``attached`` is [(name, object)] in call order."""

    def __init__(self, notice, attached):
        self._notice = notice
        self._attached = attached
        self._by_hook = {h: [] for h in HOOKS}
        for name, ext in attached:
            for h in HOOKS:
                fn = getattr(ext, h, None)
                if fn is not None:
                    self._by_hook[h].append((name, fn))

    @classmethod
    def attach_all(cls, ctx):
        """Imports and attaches every capture of ``CAPTURES`` not named in
        ``TVIS_CAPTURES_OFF`` (which is removed from the environment)."""
        off = set(filter(None, os.environ.pop("TVIS_CAPTURES_OFF", "").split(",")))
        attached = []
        for name, module in CAPTURES:
            if name in off:
                continue
            ext = importlib.import_module(module).attach(ctx)
            if ext is not None:
                attached.append((name, ext))
        return cls(ctx.notice, attached)

    def counters(self):
        """{capture name: its counters()} for the captures that count what
        they did (the benchmarks' statistics file, TVIS_STATS_FILE)."""
        return {name: ext.counters() for name, ext in self._attached if hasattr(ext, "counters")}

    def has(self, hook):
        return bool(self._by_hook[hook])

    def call(self, hook, *args):
        # no copy: disable() replaces the lists, so this loop's list never changes under it
        for short, fn in self._by_hook[hook]:
            try:
                fn(*args)
            except Exception as e:  # noqa: BLE001: an extension never breaks the script
                self.disable(short, hook, e)

    def disable(self, short, hook, e):
        """Switches capture ``short`` off after ``e`` raised in ``hook``: a
        notice, one line on stderr, and its ``finalize()`` at once."""
        cleanup = next((f for n, f in self._by_hook["finalize"] if n == short), None) if hook != "finalize" else None
        for h in HOOKS:
            self._by_hook[h] = [(n, f) for n, f in self._by_hook[h] if n != short]
        msg = "%s capture stopped after an internal error in %s: %s: %s" % (short, hook, type(e).__name__, e)
        self._notice(short + "_failed", msg)
        sys.stderr.write("tvis: %s; recording continues without it\n" % msg)
        if cleanup is not None:
            try:
                cleanup()
            except Exception:  # noqa: BLE001: already switched off and named
                pass
