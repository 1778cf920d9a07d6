"""Capture extensions: recorders that ride on the session's hooks.

Every module of this package named ``_capture_<name>.py`` defines
``attach(session)`` returning an object (or None to stay out of this run).
The session calls each of these methods on every attached object that
defines it, in the order of the module names:

``install()``                                 once, after the session's own hooks
``on_module_pre(module, eid, args)``          a module call began (event ``eid`` open)
``on_module_post(module, eid, args, output)`` it returned (event still open)
``on_fetch(eid, batch)``                      a DataLoader batch was recorded;
                                              ``session.followed`` is up to date
``on_backward(loss, loss_info)``              before the user's backward, graph intact
``on_step_end(step)``                         optimizer step ``step`` was written
``finalize()``                                before the run file is closed

Contract: the session's FIDELITY rules hold for extensions too (no RNG draws,
no flags, no writes to the user's tensors or ``.grad``). An extension that
raises is switched off for the rest of the run with a notice
(``<name>_failed``); the recording and the script go on. Its ``finalize()``
still runs once, at once, so whatever it patched is put back.

``TVIS_CAPTURES_OFF=name,name`` (read and removed from the environment, for
benchmarks and tests) leaves the named extensions out of the run.
"""

import importlib
import os
import pkgutil
import sys

HOOKS = ("install", "on_module_pre", "on_module_post", "on_fetch", "on_backward", "on_step_end", "finalize")
PREFIX = "_capture_"


class Extensions:
    def __init__(self, session):
        self.session = session
        self._by_hook = {h: [] for h in HOOKS}
        here = os.path.dirname(os.path.abspath(__file__))
        names = sorted(m.name for m in pkgutil.iter_modules([here]) if m.name.startswith(PREFIX))
        off = set(filter(None, os.environ.pop("TVIS_CAPTURES_OFF", "").split(",")))
        for name in names:
            if name[len(PREFIX):] in off:
                continue
            mod = importlib.import_module("tvis." + name)
            ext = mod.attach(session)
            if ext is None:
                continue
            short = name[len(PREFIX):]
            for h in HOOKS:
                fn = getattr(ext, h, None)
                if fn is not None:
                    self._by_hook[h].append((short, fn))

    def has(self, hook):
        return bool(self._by_hook[hook])

    def call(self, hook, *args):
        for short, fn in list(self._by_hook[hook]):
            try:
                fn(*args)
            except Exception as e:  # noqa: BLE001: an extension never breaks the script
                self._disable(short, hook, e)

    def _disable(self, short, hook, e):
        cleanup = next((f for n, f in self._by_hook["finalize"] if n == short), None) if hook != "finalize" else None
        for h in HOOKS:
            self._by_hook[h] = [(n, f) for n, f in self._by_hook[h] if n != short]
        msg = "%s capture stopped after an internal error in %s: %s: %s" % (short, hook, type(e).__name__, e)
        self.session.notice(short + "_failed", msg)
        sys.stderr.write("tvis: %s; recording continues without it\n" % msg)
        if cleanup is not None:
            try:
                cleanup()
            except Exception:  # noqa: BLE001: already switched off and named
                pass
