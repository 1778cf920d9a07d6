"""The session's hook bus: Session dispatches its lifecycle, subscribers
(``tvis.subscribers``: the diagnose probes, then the captures) act on it.

Hooks, in lifecycle order; each is called on every attached subscriber that
defines a method of that name, in registration order:

``install()``                                    run start, after the session's own hooks
``on_forward(module, eid)``                      a top-level forward call began (event ``eid``
                                                 open; before on_module_pre of that call)
``on_module_pre(module, eid, args, kwargs)``     a module call began (event ``eid`` open, on
                                                 the session's stack; ``kwargs``: {} if none)
``on_module_post(module, eid, args, output)``    it returned (event still open)
``on_fetch(eid, batch)``                         a DataLoader batch was recorded;
                                                 the followed rows are up to date
``on_backward(loss, loss_info)``                 before the user's backward, graph intact
``on_backward_call_open(eid, loss)``             the BackwardCall event ``eid`` opened,
                                                 backward not run yet (``loss`` may be None)
``on_backward_call_close(eid)``                  backward returned or raised; ``eid`` still open
``on_optimizer_step_open(eid)``                  an optimizer's OptimizerStep event opened,
                                                 before its parameters are snapshotted
``on_step_end(step)``                            step ``step``'s records were written; its
                                                 events not yet flushed
``finalize()``                                   run end, before the run file is closed

Contract: subscribers keep the session's FIDELITY rules (no RNG draws, no
flags, no writes to the user's tensors or ``.grad``). Module-call hooks run
for every module call: a subscriber of them does a type check and returns,
or hands the tensors to the native recorder in one call (dead_units), or
keeps what it needs and resolves it once per step; anything heavier belongs
to on_step_end. A subscriber that raises is switched off for the rest of the
run with a notice (``<name>_failed``) and one stderr line; the recording and
the script go on. Its ``finalize()`` still runs once, at once, so whatever it
patched is put back.

``TVIS_CAPTURES_OFF=name,name`` (read and removed from the environment, for
benchmarks and tests) leaves the named captures out of the run.
"""

import importlib
import os
import sys

HOOKS = ("install", "on_forward", "on_module_pre", "on_module_post", "on_fetch", "on_backward",
         "on_backward_call_open", "on_backward_call_close", "on_optimizer_step_open", "on_step_end", "finalize")


class HookBus:
    """The attached subscribers and the dispatch of the session's hooks to them.

    ``notice(code, message)`` records a run notice (the session's);
    ``attached`` is [(name, object)] in call order; ``kinds`` maps a name to
    its kind ("probe" or "capture", named in the failure notice)."""

    def __init__(self, notice, attached, kinds=None):
        self._notice = notice
        self._attached = attached
        self._kinds = kinds or {}
        self._by_hook = {h: [] for h in HOOKS}
        for name, sub in attached:
            for h in HOOKS:
                fn = getattr(sub, h, None)
                if fn is not None:
                    self._by_hook[h].append((name, fn))

    @classmethod
    def attach_all(cls, session, subscribers, capture_context):
        """Imports and attaches every subscriber of `subscribers` ((name,
        module, kind), tvis.subscribers.SUBSCRIBERS) except the captures named
        in ``TVIS_CAPTURES_OFF`` (which is removed from the environment): a
        probe gets `session`, a capture `capture_context`."""
        off = set(filter(None, os.environ.pop("TVIS_CAPTURES_OFF", "").split(",")))
        attached, kinds = [], {}
        for name, module, kind in subscribers:
            if kind == "capture" and name in off:
                continue
            sub = importlib.import_module(module).attach(session if kind == "probe" else capture_context)
            if sub is not None:
                attached.append((name, sub))
                kinds[name] = kind
        return cls(session.notice, attached, kinds)

    def get(self, name):
        """The attached subscriber `name`, or None."""
        return next((s for n, s in self._attached if n == name), None)

    def counters(self):
        """{name: its counters()} for the subscribers that count what they
        did (the benchmarks' statistics file, TVIS_STATS_FILE)."""
        return {name: s.counters() for name, s in self._attached if hasattr(s, "counters")}

    def has(self, hook):
        return bool(self._by_hook[hook])

    def call(self, hook, *args):
        # no copy: disable() replaces the lists, so this loop's list never changes under it
        for short, fn in self._by_hook[hook]:
            try:
                fn(*args)
            except Exception as e:  # noqa: BLE001: a subscriber never breaks the script
                self.disable(short, hook, e)

    def disable(self, short, hook, e):
        """Switches subscriber ``short`` off after ``e`` raised in ``hook``: a
        notice, one line on stderr, and its ``finalize()`` at once."""
        cleanup = next((f for n, f in self._by_hook["finalize"] if n == short), None) if hook != "finalize" else None
        for h in HOOKS:
            self._by_hook[h] = [(n, f) for n, f in self._by_hook[h] if n != short]
        msg = "%s %s stopped after an internal error in %s: %s: %s" % (
            short, self._kinds.get(short, "capture"), hook, type(e).__name__, e)
        self._notice(short + "_failed", msg)
        sys.stderr.write("tvis: %s; recording continues without it\n" % msg)
        if cleanup is not None:
            try:
                cleanup()
            except Exception:  # noqa: BLE001: already switched off and named
                pass
