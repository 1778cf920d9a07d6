"""Dead units (diagnose's dead_units check, analysis/src/check_dead_units.cpp).

The output of each nn.ReLU and nn.ReLU6 call in a training forward (phase
Forward) is reduced once: its maximum over every dimension but the unit
dimension. A unit whose maximum is 0 output zero for every sample (and
position) of the batch. ReLU and ReLU6 only: their outputs are exactly 0
where a unit is off; LeakyReLU, ELU and GELU never are, so "dead" has no
exact meaning for them. Functional relu calls (F.relu, torch.relu) are not
module calls and are not seen.

Unit dimension: dim 1 for [B, F] and [B, C, *spatial] (4-D and 5-D, and
every rank but 3); the last dim for 3-D outputs, read as [B, T, F] (a
transformer's MLP; a Conv1d's [B, C, L] is read the same way, by its last
dim).

The event carries, once the step ends (the maxima are read to the host in
one pass then, so a GPU is not synchronised per call):
  dead_units     units whose maximum was exactly 0
  units          units in the output
  unit_samples   elements per unit (everything but the unit dimension)

Cost: one max-reduction of the detached output per call (no copy, no
autograd graph), at most _MAX_PENDING calls per step."""

import torch

from .. import records as R
from .. import schema as P

_MAX_PENDING = 4096
_RELU = (torch.nn.ReLU, torch.nn.ReLU6)


def unit_dim(rank):
    """The unit dimension of an output of `rank` dimensions (rank >= 2)."""
    return rank - 1 if rank == 3 else 1


class DeadUnitProbe:
    """Subscriber (hook_bus): on_module_post reduces a training forward's
    ReLU output in one native call; on_step_end and finalize write the
    counts. Per other module call: one type check."""

    def __init__(self, rec):
        self._rec = rec
        self._pending = []  # [(event id, 0-dim dead count tensor, units, samples per unit)]

    def on_module_post(self, module, eid, args, output):
        if isinstance(module, _RELU) and self._rec.phase() == P.FORWARD:
            self.after_call(module, eid, output)

    def on_step_end(self, step):
        self.resolve()

    def finalize(self):
        self.resolve()

    def after_call(self, module, eid, output):
        """A module call has returned `output` in a training forward."""
        if not isinstance(module, _RELU) or not isinstance(output, torch.Tensor):
            return
        if output.dim() < 2 or not output.is_floating_point() or output.numel() == 0:
            return
        if len(self._pending) >= _MAX_PENDING:
            return
        d = unit_dim(output.dim())
        units = output.shape[d]
        # (peak == 0).sum() of peak = amax over every dimension but d, in one native call (no autograd)
        self._pending.append((eid, self._rec.dead_units(output, d), units, output.numel() // units))

    def resolve(self):
        """Writes the pending calls' counts into their events (before the step's events are flushed)."""
        pending, self._pending = self._pending, []
        for eid, dead, units, samples in pending:
            self._rec.add_detail(eid, R.event_detail(dead_units=int(dead), units=units, unit_samples=samples))


def attach(session):
    return DeadUnitProbe(session.rec)
