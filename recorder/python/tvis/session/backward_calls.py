"""backward() calls: ``Tensor.backward`` and ``torch.autograd.backward``
wrapped (the wrapper calls the original with the same arguments and returns
its result; backward() calls nested in one, a capture's or the script's, are
not recorded again).

``BackwardCalls`` is a part of Session (a mixin over the Session's fields).
At each recorded backward, in order: a hand-written step before it ends
(``_boundary``); after the last requested step the script ends here
(``stop``); the latest training fetch's dataset is marked as feeding
training (``_training_data``); the loss it runs on is analysed and the bus's
``on_backward(loss, info)`` dispatched (loss_calls.py); the BackwardCall
event opens and the bus's ``on_backward_call_open(eid, loss)`` runs; then
the user's backward; then ``on_backward_call_close(eid)``, the event ends,
and without ``torch.optim`` a hand-written step opens
(hand_written_steps.py). ``_bw_depth`` is non-zero while one runs.
"""

import functools
import sys

import torch

from .. import schema as P


class BackwardCalls:
    """A part of Session: recorded backward() calls (see the module doc)."""

    def _wrap_backward(self, orig):
        session = self

        @functools.wraps(orig)
        def backward(tensors, *args, **kwargs):
            if not session.active or session._bw_depth:
                return orig(tensors, *args, **kwargs)
            eid = None
            with session._guard("backward"):
                session._boundary()
                if session.stop_pending:
                    session.stop()  # the next step's backward: the script ends here
                session._note_training_data()
                loss = tensors if isinstance(tensors, torch.Tensor) else None
                if loss is None and isinstance(tensors, (tuple, list)) and len(tensors) == 1:
                    loss = tensors[0]
                session._backwards += 1
                if loss is not None:
                    session._on_backward(loss)
                    if not session._optimizers_seen and session._step_depth == 0 and loss.grad_fn is not None:
                        session._backward_leaves = session._graph_leaves(loss)
                session.rec.set_phase(P.BACKWARD)
                f = sys._getframe(1)
                eid = session.rec.begin(P.BACKWARD_CALL, "backward", "", session.rec.file_id(f.f_code.co_filename),
                                        f.f_lineno, 0, 0)
                session.bus.call("on_backward_call_open", eid, loss)
            session._bw_depth += 1
            try:
                return orig(tensors, *args, **kwargs)
            finally:
                session._bw_depth -= 1
                if eid is not None and session.active:
                    with session._guard("backward"):
                        session.bus.call("on_backward_call_close", eid)
                        session.rec.end(eid)
                        if not session._optimizers_seen and session._step_depth == 0:
                            session._open_manual_step()

        return backward

    def _note_training_data(self):
        """The latest training fetch's dataset fed this step (where a stopped run ends)."""
        d = self._last_dataset
        if d is not None and not any(x is d for x in self._training_data):
            self._training_data.append(d)

    def fed_training(self, dataset):
        return any(x is dataset for x in self._training_data)
