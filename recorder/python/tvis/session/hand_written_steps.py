"""Steps without ``torch.optim`` (docs/cli.md): a step is one backward()
plus the code after it until the next top-level module call, loss call or
data fetch, where a hand-written update belongs.

``HandWrittenSteps`` is a part of Session (a mixin over the Session's
fields): after such a backward, ``_open_manual_step`` opens an
OptimizerStep event named "update" and snapshots every trained parameter
and the backward's leaves outside any module (named by the script's global
variable holding them: ``_extra_names``); ``_boundary`` (called where the
next step's work begins) records their updates and ends the step.
``_manual`` is the open step, or None.
"""

import sys

import torch

from .. import records as R
from .. import schema as P


class HandWrittenSteps:
    """A part of Session: hand-written updates after a backward (see the module doc)."""

    def _graph_leaves(self, loss):
        """Leaf tensors the backward of `loss` accumulates into (AccumulateGrad nodes), in the
        recorder's depth-first order (PyRecorder::graph_leaves: a walk of the graph in C++)."""
        return self.rec.graph_leaves(loss)

    def _leaf_names(self, leaves):
        """Names for leaves outside any module: the script's global variable holding it."""
        main = sys.modules.get("__main__")
        names = {}
        for k, v in (vars(main).items() if main else ()):
            if isinstance(v, torch.Tensor):
                names.setdefault(id(v), k)
        return {id(t): names[id(t)] for t in leaves if id(t) in names}

    def _open_manual_step(self):
        params, seen = [], set()
        for root in self.names.live_roots():
            for p in root.parameters():
                if p.requires_grad and id(p) not in seen:
                    seen.add(id(p))
                    params.append(p)
        extra = [t for t in self._backward_leaves if id(t) not in seen]
        self._extra_names = self._leaf_names(extra)
        params += extra
        self._backward_leaves = []
        f = sys._getframe(2)
        eid = self.rec.begin(P.OPTIMIZER_STEP, "update", "", self.rec.file_id(f.f_code.co_filename), f.f_lineno, 0, 0)
        self.rec.set_phase(P.OPTIMIZER)
        self._manual = (eid, self._snapshot_params(eid, params))

    def _boundary(self):
        """Closes a hand-written step (backward + the update after it)."""
        if self._manual is None:
            return
        eid, snap = self._manual
        self._manual = None
        groups = [R.param_group(hyper=[], params=[n for n, _, _, _, _ in snap])]
        self._record_update(eid, snap, "", groups)
        self._end_step()
