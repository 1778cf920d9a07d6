"""Capture extensions: recorders that ride on the session's hooks.

Each capture is a subpackage here, registered in ``tvis.subscribers.CAPTURES``
(name, module; re-exported here): the module defines ``attach(ctx)``, ``ctx`` a
``tvis.session.context.CaptureContext`` (the only view of the session a capture
has), returning an object or None to stay out of this run. Modules directly in
this folder are helpers that several captures share (``vocabulary``).

A capture is a subscriber of the session's hook bus
(``tvis.session.hook_bus``: the hooks, their order and the contract: FIDELITY
holds for captures too; one that raises is switched off with a notice
``<name>_failed`` and its ``finalize()`` runs at once).

``TVIS_CAPTURES_OFF=name,name`` (read and removed from the environment, for
benchmarks and tests) leaves the named captures out of the run.

Importing this package imports no capture (nor torch): benchmarks read
``names()`` from it.
"""

from ..subscribers import CAPTURES, capture_names as names  # noqa: F401 (the registry, re-exported)
