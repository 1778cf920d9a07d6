"""Which top-level forwards a backward reached (session.py's docstring: a
top-level forward with gradients on that no backward of its step reached
becomes an Evaluation at the step's end).

``TopForwards`` is a part of Session (a mixin over the Session's fields):
``_top_forwards`` maps each of this step's top-level forward events to
"pending" (output not seen), "built" (a graph a backward may reach),
"reached" (one did), "no graph" or "unknown" (no tensor output: never
relabelled); ``_model_batches`` lists the events whose input gave the
step's followed samples without a DataLoader; ``_backwards`` counts the
step's backward() calls. ``_watch_forward`` hooks each output's grad_fn (the
hook only reads: it returns None); ``_close_forwards`` relabels the
unreached ones, keeps the followed batch of the first reached forward, and
resets the three fields for the next step.
"""

import functools

import torch


class TopForwards:
    """A part of Session: top-level forwards and whether a backward reached them (see the module doc)."""

    def _watch_forward(self, eid, output):
        """Whether a backward reaches this top-level forward: a hook on each
        output's grad_fn (reading only: it returns None)."""
        tensors = _output_tensors(output)
        if not tensors:
            self._top_forwards[eid] = "unknown"
            return
        built = [t for t in tensors if t.grad_fn is not None]
        self._top_forwards[eid] = "built" if built else "no graph"
        for t in built:
            t.grad_fn.register_hook(functools.partial(self._forward_reached, eid))

    def _forward_reached(self, eid, *_):
        if eid in self._top_forwards:
            self._top_forwards[eid] = "reached"

    def _close_forwards(self):
        """The step's end: a top-level forward that built no graph, or one no
        backward of the step reached (a logging or probe forward with gradients
        on, a frozen teacher), is an evaluation; the followed samples are the
        first reached forward's (without a DataLoader)."""
        unreached = [e for e, state in self._top_forwards.items() if state in ("built", "no graph")]
        if unreached and self._backwards:
            self.rec.relabel_as_evaluation(unreached)
        else:
            unreached = []
        keep = next((e for e in self._model_batches if e not in unreached), None)
        drop = [e for e in self._model_batches if e != keep]
        if drop:
            self.rec.drop_sample_batches(drop)
        self._top_forwards = {}
        self._model_batches = []
        self._backwards = 0


def _output_tensors(output):
    """The tensors a forward returned: the output itself, or those one level
    inside a tuple, list or mapping (a ModelOutput is one)."""
    if isinstance(output, torch.Tensor):
        return [output]
    if isinstance(output, (tuple, list)):
        return [t for t in output if isinstance(t, torch.Tensor)]
    if isinstance(output, dict):
        return [t for t in output.values() if isinstance(t, torch.Tensor)]
    return []
