"""Gradients carried across steps (diagnose's stale_gradients check,
analysis/src/check_carried_grads.cpp).

Before each backward() of a step runs, the optimizers' parameters it reaches
for the first time in the step (the leaves of its graph) are checked: a
.grad already non-zero there was left by an earlier step's backward (no
zero_grad between the optimizer step and this backward). A parameter reached
again by a later backward of the same step is not checked again: several
backwards before one optimizer.step() are deliberate accumulation.

The backward's event carries, when it checked any parameter:
  grads_checked        parameters checked at this backward
  grads_carried        of those, how many had a non-zero .grad (NaN counts)
  grads_carried_norm   sqrt of the sum of their squared .grad norms
  grads_carried_param  the one with the largest .grad norm

Cost: one walk of the loss's graph (native) per backward, one vector norm
per newly reached parameter with a .grad (small float32 host gradients: all
in one native call, in double), and one host read per device. Nothing
is written: .grad is read detached, under no_grad."""

import torch

from .. import records as R


class CarriedGradProbe:
    """Subscriber (hook_bus): on_backward_call_open checks, on_step_end
    forgets the step's checked parameters."""

    def __init__(self, session):
        self._s = session
        self._checked = set()  # ids of the parameters checked in this step

    def on_step_end(self, step):
        self._checked = set()

    def on_backward_call_open(self, eid, loss):
        """Checks the parameters `loss`'s backward reaches first in this step;
        records the counts on `eid` (the BackwardCall event)."""
        s = self._s
        if loss is None or loss.grad_fn is None or not len(s._optimizers):
            return
        held = {id(p): p for o in list(s._optimizers) for g in o.param_groups for p in g["params"]}
        fresh = [t for t in s._graph_leaves(loss) if id(t) in held and id(t) not in self._checked]
        if not fresh:
            return
        self._checked.update(id(t) for t in fresh)
        carried, sq, worst, worst_norm = 0, 0.0, None, -1.0
        for t, n in _grad_norms(s.rec, fresh):
            if n != 0:  # NaN too
                carried += 1
                sq += n * n
                if not n <= worst_norm:
                    worst, worst_norm = t, n
        norm = name = None
        if carried:
            name = s._param_names().get(id(worst), "?")
            norm = float("%.6g" % sq ** 0.5)  # 6 significant digits, as the detail always held
        s.rec.add_detail(eid, R.event_detail(grads_checked=len(fresh), grads_carried=carried,
                                             grads_carried_norm=norm, grads_carried_param=name))


def attach(session):
    return CarriedGradProbe(session)


def _grad_norms(rec, params):
    """[(parameter, float norm of its .grad)] for those of `params` with a
    .grad, in their order: a small float32 host gradient summed in double by
    the recorder, all in one call (Recorder.small_l2_norms); any other by
    torch's vector norm, read with one stacked copy per device."""
    pairs = [(t, g) for t in params if (g := t.grad) is not None]
    if not pairs:
        return []
    quick = rec.small_l2_norms([g for _, g in pairs])  # read only
    with torch.no_grad():
        rest = [(t, _norm(g)) for (t, g), q in zip(pairs, quick) if q is None]
    read = {id(t): v for t, v in _on_host(rest)}
    return [(t, q if q is not None else read[id(t)]) for (t, _), q in zip(pairs, quick)]


def _norm(grad):
    """The L2 norm of a .grad (a sparse one: of its values), as a 0-dim float tensor on its device."""
    g = grad.detach()
    if g.is_sparse:
        g = g.coalesce()._values()
    return torch.linalg.vector_norm(g).float()


def _on_host(norms):
    """[(tensor, float norm)]: one stacked read per device."""
    by_device = {}
    for t, n in norms:
        by_device.setdefault(n.device, []).append((t, n))
    out = []
    for pairs in by_device.values():
        values = torch.stack([n for _, n in pairs]).tolist()
        out += [(t, v) for (t, _), v in zip(pairs, values)]
    return out
