"""Recording one dataset item through its transforms.

``ItemTracer(session, on_error).trace(dataset, call, sample_id,
dataset_index)`` runs ``call()`` (the dataset's ``__getitem__`` for that
index, or the next item of an iterable dataset) with every callable reachable
from the dataset (``discover.py``) routed through a recorder
(``intercept.py``), and returns ``(call's result, {"event",
"transforms"})`` (None instead of the dict when recording failed to start).

Events: one DatasetGetItem event (the dataset's class, details
``sample``/``dataset_index``, its output tensors) holding one Transform event
per intercepted call, nested as the calls nest (a Compose holds its
children). Each Transform event has its input and output tensors (values
converted by ``values.py``), details ``input``/``output`` describing
the values and ``rng`` naming the streams it drew from, and the state of
each such stream before the call as a tensor of role Other named
``torch_rng_state`` (``torch.get_rng_state()``), ``numpy_rng_state`` or
``python_rng_state`` (layouts in ``rng.py``).

At most MAX_CALLS calls are recorded per item (a notice says when more ran).

``transforms``: the leaf calls (calls that made no intercepted call
themselves) in call order, as py_records.h's TransformStep dicts (name,
class_name, event, input, output, input_kind, output_kind, rng_state). A
leaf's output equals the callable applied to its recorded input with its
recorded stream states set.

Contract: the call runs exactly as without tracing (same arguments, same
result object, exceptions pass through); recording only reads values and
stream states. A failure of the recorder itself is reported through
``on_error`` and the item continues unrecorded.
"""

import os
import sys
import types

import torch

from ... import records as R
from ... import schema as P
from .discover import discover
from .intercept import Interceptor
from .rng import Snapshot, encode_numpy, encode_python
from .values import TENSOR, as_tensor

_NAME_MAX = 160
MAX_CALLS = 64  # recorded calls per item; later ones run unrecorded (notice pipeline_calls_capped)


def describe(fn):
    """(step name, class name) of a callable: its repr and its class, or a
    function's qualified name with its file and line, and that name."""
    if isinstance(fn, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        q = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "?")
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        if code is None:
            return q, q
        return "%s (%s:%d)" % (q, os.path.basename(code.co_filename), code.co_firstlineno), q
    if hasattr(fn, "func") and hasattr(fn.func, "__qualname__"):  # functools.partial
        return " ".join(repr(fn).split())[:_NAME_MAX], fn.func.__qualname__
    try:
        text = repr(fn)
    except Exception:  # a user __repr__ that fails
        text = type(fn).__name__
    return " ".join(text.split())[:_NAME_MAX], type(fn).__name__


def _code_of(fn):
    target = getattr(type(fn), "forward", None) if isinstance(fn, torch.nn.Module) else None
    if target is None:
        target = fn if hasattr(fn, "__code__") else getattr(type(fn), "__call__", None)
    target = getattr(target, "__func__", target)
    return getattr(target, "__code__", None)


class _Value:
    """The last non-tensor value recorded and the tensor made of it: the same
    object handed on unchanged (a transform's output is the next one's input)
    gives that same tensor again, which the recorder dedups to the same id."""

    def __init__(self):
        self.obj = None
        self.tensor = None

    def same(self, value, tensor):
        """The kept tensor when `value` is the kept object with equal values, else `tensor` (now kept)."""
        t = self.tensor
        if value is self.obj and t is not None and tensor.dtype == t.dtype and tensor.shape == t.shape \
                and torch.equal(tensor, t):
            return t
        self.obj, self.tensor = value, tensor
        return tensor


class _Step:
    __slots__ = ("fn", "event", "record", "snapshot", "has_child", "input")

    def __init__(self, fn, event):
        self.fn = fn
        self.event = event
        self.record = None
        self.snapshot = None
        self.has_child = False
        self.input = None


class ItemTracer:
    def __init__(self, ctx, on_error):
        self.s = ctx  # CaptureContext
        self.on_error = on_error
        self.failed = False
        self._stack = []
        self._steps = []
        self._last = _Value()

    # ------------------------------------------------------------ item --
    def trace(self, dataset, call, sample_id, dataset_index):
        """(call(), {"event", "transforms"}), or (call(), None) when recording failed to start."""
        try:
            eid, icpt = self._open(dataset, sample_id, dataset_index)
        except Exception as e:  # noqa: BLE001
            self.fail(e)
            return call(), None
        try:
            out = call()
        finally:
            try:
                icpt.remove()
                self.s.rec.end(eid)
            except Exception as e:  # noqa: BLE001
                self.fail(e)
        try:
            self.s.rec.tensors(eid, P.OUTPUT, out, True)  # a sample's values: never cut to batch rows
        except Exception as e:  # noqa: BLE001
            self.fail(e)
        leaves = [s.record for s in self._steps if not s.has_child and s.record is not None]
        return out, {"event": eid, "transforms": leaves}

    def _open(self, dataset, sample_id, dataset_index):
        rec = self.s.rec
        cls = type(dataset)
        code = getattr(getattr(cls, "__getitem__", None), "__code__", None)
        df, dl = (rec.file_id(code.co_filename), code.co_firstlineno) if code else (0, 0)
        self._stack, self._steps, self._last = [], [], _Value()
        icpt = Interceptor(discover(dataset), self._on_call)
        eid = rec.begin(P.DATASET_GET_ITEM, cls.__name__, cls.__name__, 0, 0, df, dl)
        try:
            rec.add_detail(eid, R.event_detail(sample=sample_id, dataset_index=dataset_index))
            icpt.install()
        except Exception:
            icpt.remove()
            rec.end(eid)
            raise
        return eid, icpt

    # ----------------------------------------------------------- calls --
    def _on_call(self, fn, orig, args, kwargs, value):
        step = None
        if len(self._steps) >= MAX_CALLS:
            self.s.notice("pipeline_calls_capped", "a dataset item made more than %d transform calls; the "
                          "calls after the first %d were not recorded" % (MAX_CALLS, MAX_CALLS))
        elif not self.failed:
            try:
                step = self._begin(fn, value, sys._getframe(3))
            except Exception as e:  # noqa: BLE001
                self.fail(e)
        try:
            out = orig(*args, **kwargs)
        except BaseException:
            if step is not None:
                self._abort(step)
            raise
        if step is not None and not self.failed:
            try:
                self._finish(step, out)
            except Exception as e:  # noqa: BLE001
                self.fail(e)
        return out

    def _begin(self, fn, value, caller):
        rec = self.s.rec
        name, cls_name = describe(fn)
        code = _code_of(fn)
        df, dl = (rec.file_id(code.co_filename), code.co_firstlineno) if code else (0, 0)
        cf = rec.file_id(caller.f_code.co_filename)
        if self._stack:
            self._stack[-1].has_child = True
        step = _Step(fn, rec.begin(P.TRANSFORM, name, cls_name, cf, caller.f_lineno, df, dl))
        step.input = self._value(step.event, P.INPUT, value)
        step.record = R.transform_step(name=name, class_name=cls_name, event=step.event)
        self._stack.append(step)
        self._steps.append(step)
        step.snapshot = Snapshot()  # last: nothing of ours runs between it and the call
        return step

    def _finish(self, step, out):
        rec = self.s.rec
        changed = step.snapshot.changed()
        self._pop(step)
        tid, kind, desc = self._value(step.event, P.OUTPUT, out)
        in_tid, in_kind, in_desc = step.input
        rng, rng_state = None, None
        if changed and not step.has_child:
            st = step.snapshot.streams
            rng = " ".join(changed)
            if "torch" in changed:
                rng_state = rec.tensor(st.torch, P.OTHER, step.event, "torch_rng_state")
            if "numpy" in changed:
                rec.tensor(encode_numpy(st.numpy), P.OTHER, step.event, "numpy_rng_state")
            if "random" in changed:
                rec.tensor(encode_python(st.python), P.OTHER, step.event, "python_rng_state")
        step.record = R.transform_step(name=step.record["name"], class_name=step.record["class_name"],
                                       event=step.event, input=in_tid, input_kind=in_kind, output=tid,
                                       output_kind=kind, rng_state=rng_state)
        rec.add_detail(step.event, R.event_detail(input=in_desc, output=desc, rng=rng))
        rec.end(step.event)

    def _abort(self, step):
        self._pop(step)
        step.record = None
        self.s.rec.end(step.event)

    def _pop(self, step):
        while self._stack:
            if self._stack.pop() is step:
                break

    def _value(self, eid, role, value):
        """(tensor id or -1, kind, description) of a value, recorded on event eid."""
        t, kind, desc = as_tensor(value)
        if t is None:
            return -1, kind, desc
        if kind != TENSOR:
            t = self._last.same(value, t)
        ids = self.s.rec.tensors(eid, role, t, True)
        return (ids[0] if ids else -1), kind, desc

    def fail(self, e):
        self.failed = True
        self.on_error(e)

