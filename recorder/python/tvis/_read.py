"""Reading a run back in Python (tests, benchmarks): ``load(path)``.

Returns a Run with plain dicts as in schema/recording.fbs (field names as in
the schema, enums as their names): ``meta`` (the last RunMeta), ``events``
(by id), ``tensors`` (by id), ``optimizer_steps``, ``losses``, ``samples``
(the SampleBatch records, in order), ``sources``, and ``records``: every
chunk kind's bodies by kind name (``records["grad_clip"]``), in file order,
so a new record kind reads back with no code here;
``values(tensor_id)`` gives the kept values as a torch tensor (full shape for
ValuesKept Full, the leading rows for LeadingRows, None when none are kept).
"""

import json
import re

import tvis.native
import tvis.schema

_tvis_native = tvis.native.load()

_DTYPES = {
    "Float32": "float32", "Float64": "float64", "Float16": "float16", "BFloat16": "bfloat16",
    "Int64": "int64", "Int32": "int32", "Int16": "int16", "Int8": "int8", "UInt8": "uint8", "Bool": "bool",
}
_NONFINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?)\b(nan|inf|infinity)\b', re.IGNORECASE)


# FlatBuffers leaves out fields equal to their default; put them back (the
# schema's defaults, generated from recording.fbs: tvis.schema.DEFAULTS).
_DEFAULTS = tvis.schema.DEFAULTS


def _with(d, defaults):
    for k, v in defaults.items():
        d.setdefault(k, list(v) if isinstance(v, list) else v)  # a list of its own per record
    return d


def _json(text):
    def fix(m):  # bare nan/inf outside strings (any case, any sign) -> Python json's NaN/Infinity
        if m.group(2) is None:
            return m.group(0)
        if m.group(2).lower() == "nan":
            return "NaN"  # a NaN's sign means nothing, and json has no -NaN
        return m.group(1) + "Infinity"
    text = _NONFINITE.sub(fix, text)
    return json.loads(text)


class Run:
    def __init__(self, path):
        self.file = _tvis_native.RunFile(str(path))
        self.complete = self.file.complete
        self.notice = self.file.notice
        self.meta = None
        self.events = {}
        self.tensors = {}
        self.optimizer_steps = []
        self.losses = []
        self.samples = []
        self.sources = []
        self.records = {}  # chunk kind name -> its bodies in file order, top-level defaults filled in
        self.chunks = self.file.chunks()
        for ordinal, kind, *_ in self.chunks:
            if kind in ("tensor_data", "index"):
                continue
            chunk = _json(self.file.chunk_json(ordinal))
            body = chunk.get("body", {})
            if chunk.get("body_type") in _DEFAULTS:
                _with(body, _DEFAULTS[chunk["body_type"]])
            self.records.setdefault(kind, []).append(body)
            if kind == "run_meta":
                for t in body.get("phase_timings", []):
                    _with(t, _DEFAULTS["PhaseTiming"])
                self.meta = body
            elif kind == "events":
                for e in body.get("events", []):
                    e = _with(e, _DEFAULTS["Event"])
                    self.events[e["id"]] = e
            elif kind == "tensors":
                for t in body.get("tensors", []):
                    t = _with(t, _DEFAULTS["TensorRecord"])
                    self.tensors[t["id"]] = t
            elif kind == "optimizer_step":
                _with(body, _DEFAULTS["OptimizerStepRecord"])
                for p in body.get("params", []):
                    _with(p, _DEFAULTS["ParamRecord"])
                self.optimizer_steps.append(body)
            elif kind == "loss":
                _with(body, _DEFAULTS["LossRecord"])
                self.losses.append(body)
            elif kind == "samples":
                _with(body, _DEFAULTS["SampleBatch"])
                for x in body.get("samples", []):
                    _with(x, _DEFAULTS["Sample"])
                self.samples.append(body)
            elif kind == "source_files":
                # one chunk per flush that saw new files, the rest at finalize: the union, by id
                self.sources.extend(_with(f, _DEFAULTS["SourceFile"]) for f in body.get("files", []))
        self.sources.sort(key=lambda f: f["id"])

    def values(self, tensor_id):
        import torch
        t = self.tensors[tensor_id]
        if t.get("kept", "None") == "None" or not t.get("data_size"):
            return None
        raw = self.file.data(t["data_chunk"], t["data_offset"], t["data_size"])
        dtype = getattr(torch, _DTYPES[t["dtype"]])
        shape = list(t.get("shape", []))
        if t["kept"] == "LeadingRows":
            shape[0] = t["kept_rows"]
        return torch.frombuffer(bytearray(raw), dtype=dtype).reshape(shape)

    def module_events(self):
        return [e for e in self.events.values() if e.get("kind") == "ModuleCall"]


def load(path):
    return Run(path)
