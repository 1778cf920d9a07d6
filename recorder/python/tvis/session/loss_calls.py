"""Loss calls and the loss each backward() runs on (LossRecord: loss.py's
analyze_loss).

``LossCalls`` is a part of Session (a mixin over the Session's fields): the
``torch.nn.functional`` losses are wrapped (``_wrap_loss_fn``: the wrapper
calls the original with the same arguments and returns its result; a call
that raises is recorded with its inputs and re-raised unchanged); each call
whose output has a graph is kept in ``_loss_candidates`` (the latest
``_MAX_LOSS_CANDIDATES``: each holds its output's graph); ``_on_backward``
matches the backward's tensor to a candidate (or the latest one that fed
it), writes the LossRecord, clears the candidates and dispatches the bus's
``on_backward`` with gradient recording quiet (a capture's extra autograd
pass records no dL/d(output)). ``_loss_depth`` counts loss calls in
progress: nested ones (nn.CrossEntropyLoss calling F.cross_entropy, the
analysis's own) are not the script's.
"""

import functools
import inspect
import sys

import torch

from .. import records as R
from .. import schema as P
from .loss import analyze_loss, feeds, grad_fn_name


# The loss functions of torch.nn.functional whose calls are recorded (wrapped at install).
LOSS_FUNCTIONS = (
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
)

# Loss calls kept as candidates for the loss the next backward() runs on: the
# latest ones only (each holds its output's graph; an evaluation loop with
# grad enabled and no backward would otherwise keep every batch's graph).
_MAX_LOSS_CANDIDATES = 8


class LossCalls:
    """A part of Session: loss calls and the loss each backward runs on (see the module doc)."""

    def _wrap_loss_fn(self, qualname, orig):
        sig = inspect.signature(orig)
        session = self

        @functools.wraps(orig)
        def loss_fn(*args, **kwargs):
            if not session.active or session._loss_depth or session.stop_pending:
                return orig(*args, **kwargs)
            eid = None
            with session._guard(qualname):
                if not session._stack and not session._fetch_depth:
                    session._boundary()
                    if not session.stop_pending and session._bw_depth == 0 and session._step_depth == 0:
                        session.rec.set_phase(session._top_level_phase(True))
                elif session._loss_in_model_forward():
                    session.rec.set_phase(P.LOSS)
                if not session.stop_pending:  # else the last step has just ended: unrecorded
                    f = sys._getframe(1)
                    eid = session.rec.begin(P.LOSS_CALL, qualname, "", session.rec.file_id(f.f_code.co_filename),
                                            f.f_lineno, 0, 0)
            session._loss_depth += 1
            try:
                out = orig(*args, **kwargs)
            except Exception:
                if eid is not None and session.active:
                    with session._guard(qualname):
                        session._note_failed_loss_call(sig, eid, args, kwargs)
                raise
            finally:
                session._loss_depth -= 1
            if eid is None or not session.active:
                return out
            with session._guard(qualname):
                session.rec.end(eid)
                session._note_loss_call(qualname, sig, eid, orig, args, kwargs, out)
            return out

        # TorchScript compiling code that calls the loss compiles the original
        # (torch.jit._script_if_tracing's mechanism), not this wrapper.
        setattr(loss_fn, "__script_if_tracing_wrapper", True)
        setattr(loss_fn, "__original_fn", orig)
        return loss_fn

    def _loss_in_model_forward(self):
        """A loss call inside the training forward's own body, with none of its submodules open (a
        Hugging Face model's `labels=` loss): the Loss phase begins there, so the step reads forward,
        loss, backward as when the script calls the loss itself. A loss inside a submodule (an
        auxiliary loss) leaves the phase alone."""
        return len(self._stack) == 1 and not self._fetch_depth and self.rec.phase() == P.FORWARD \
            and self._bw_depth == 0 and self._step_depth == 0

    def _note_loss_call(self, qualname, sig, eid, orig, args, kwargs, out):
        """Keeps a loss function's call as a candidate for the loss backward() runs on."""
        try:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
        except TypeError:
            arguments = {}
        tens = [a for a in args[:2] if isinstance(a, torch.Tensor)]
        self.rec.tensors(eid, P.INPUT, tuple(tens))
        self.rec.tensors(eid, P.OUTPUT, out)
        info = {"call": qualname, "event": eid, "arguments": arguments, "fn": qualname.rsplit(".", 1)[1],
                "orig": orig}
        self._add_loss_candidate(out, info)

    def _note_failed_loss_call(self, sig, eid, args, kwargs):
        """A loss function that raised (CPU cross_entropy on targets outside the
        class range): its input and target as the call's inputs, detail
        EventDetail raised and its ignore_index, so diagnose can judge what it was
        handed; the event ends here, the exception goes on to the script."""
        try:
            arguments = sig.bind(*args, **kwargs).arguments
        except TypeError:
            arguments = {}
        inp, target = arguments.get("input"), arguments.get("target")
        if isinstance(inp, torch.Tensor) and isinstance(target, torch.Tensor):
            self.rec.tensors(eid, P.INPUT, (inp, target))
        index = arguments.get("ignore_index")
        index = int(index) if isinstance(index, int) and not isinstance(index, bool) else None
        self.rec.add_detail(eid, R.event_detail(raised=True, ignore_index=index))
        self.rec.end(eid)

    def _add_loss_candidate(self, out, info):
        if not isinstance(out, torch.Tensor) or out.grad_fn is None:
            return  # no backward can run on it (an evaluation's loss)
        self._loss_candidates.append((out, info))
        if len(self._loss_candidates) > _MAX_LOSS_CANDIDATES:
            del self._loss_candidates[0]

    def _on_backward(self, loss):
        cand, outer = None, ""  # the outermost call that returned `loss` (nn.CrossEntropyLoss over F.cross_entropy)
        for out, info in reversed(self._loss_candidates):
            if out is loss:
                cand = info
                break
        call_out = None
        if cand is None:  # a composite loss (cross-entropy + a regulariser, loss / 4): the latest call that fed it
            outer = grad_fn_name(loss)
            call_out, cand = next(((out, info) for out, info in reversed(self._loss_candidates)
                                   if feeds(out, loss)), (None, None))
        self._loss_depth += 1  # its own F.cross_entropy is not a loss call of the script
        try:
            rec = analyze_loss(self, loss, cand, outer, call_out)
        except Exception as e:  # analysis must never break training
            self.notice("loss_analysis_failed", "loss analysis failed: %s: %s" % (type(e).__name__, e))
            rec = None
        finally:
            self._loss_depth -= 1
        if rec is not None:
            self.rec.add_loss(rec)
        self._loss_candidates = []
        self.rec.set_grads_quiet(True)  # a capture's extra gradient pass (Grad-CAM's) records no dL/d(output)
        try:
            self.bus.call("on_backward", loss, cand)
        finally:
            self.rec.set_grads_quiet(False)
