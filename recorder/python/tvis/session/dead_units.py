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
autograd graph), at most 4096 calls per step. The counts are kept and
written by the native recorder (Recorder.note_dead_units /
resolve_dead_units): per ReLU call, one type check and one native call."""

import torch

from .. import schema as P

_RELU = (torch.nn.ReLU, torch.nn.ReLU6)


class DeadUnitProbe:
    """Subscriber (hook_bus): on_module_post hands a training forward's ReLU
    output to the native recorder in one call; on_step_end and finalize have
    it write the counts. Per other module call: one type check."""

    def __init__(self, rec):
        self._rec = rec

    def on_module_post(self, module, eid, args, output):
        if isinstance(module, _RELU) and isinstance(output, torch.Tensor) and self._rec.phase() == P.FORWARD:
            self._rec.note_dead_units(eid, output)

    def on_step_end(self, step):
        self._rec.resolve_dead_units()

    def finalize(self):
        self._rec.resolve_dead_units()


def attach(session):
    return DeadUnitProbe(session.rec)
