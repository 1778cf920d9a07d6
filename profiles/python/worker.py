# worker.py: the profile-capture worker. Embedded in tvis (worker_script.cpp,
# with worker_jax.py appended and main() called last) and run once per capture as
#   python -I -c <this file> < JOB
# in the selected interpreter. Its own code is this one `-c` string: nothing
# of it is importable, so a project package named `services`, `tvis_worker`
# or like any of its helpers cannot collide with it.
#
# JOB (stdin, one JSON object, built by profiles/src/worker_job.cpp):
#   workspace, cwd (absolute), module, class, mode, device, grad_enabled,
#   seed (int|null), deterministic, init {args, kwargs} | factory {file,
#   callable, kwargs}, inputs {args, kwargs} (typed values) | input_factory
#   {file, callable, kwargs} | automatic (true), max_capture_bytes,
#   framework ("jax": worker_jax.py runs the capture; absent: torch).
# fd 3: JSON lines, each {"t": ...} (a pipe of its own: the protocol; moved at
# once to a high descriptor no child inherits and fd 3 closed, while fd 1 and
# sys.stdout go to stderr, so whatever the model's code prints, writes to fd 1
# or starts cannot corrupt or forge the stream):
#   ready                   torch (or jax) is imported (the C++ side starts timeout_ms)
#   stage  {stage}          a setup stage begins: device, import, construction,
#                           factory, inputs, binding, forward
#   node   {id, op, module, inputs: [{from, shape, dtype}], outputs: [...]}
#   truncated               the node stream reached max_capture_bytes
#   modules {files}         the workspace files of the modules loaded by then
#                           (sys.modules __file__ under the workspace root,
#                           realpath; just before result): what the capture's
#                           freshness rechecks (docs/profiles.md "Freshness")
#   result {ok, stage, kind, message, parameters, failure, outputs, inputs,
#           automatic, exception_type}
# stderr: tracebacks and anything the model prints there (the C++ side keeps
# it in the log the result names). The model's own stdout is sent to stderr. Exception text is never parsed: the
# shape facts of a failure are the operands recorded at the failing call.
# Stays within Python 3.8's language and library.
import inspect
import json
import os
import random
import sys
import traceback



def _protocol_channel():
    import fcntl
    fd = fcntl.fcntl(3, fcntl.F_DUPFD, 512)
    os.set_inheritable(fd, False)
    os.close(3)
    return os.fdopen(fd, "w", encoding="utf-8")


OUT = _protocol_channel()
sys.stdout.flush()
os.dup2(2, 1)
sys.stdout = sys.stderr
WATCHED = {"linear", "matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "conv1d", "conv2d", "conv3d", "embedding"}
OPERAND_NAMES = {
    "linear": ("input", "weight", "bias"), "matmul": ("input", "other"), "__matmul__": ("input", "other"),
    "__rmatmul__": ("input", "other"), "mm": ("input", "mat2"), "bmm": ("input", "mat2"),
    "conv1d": ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
    "conv2d": ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
    "conv3d": ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
    "embedding": ("input", "weight", "padding_idx"),
}


def emit(obj):
    line = json.dumps(obj, separators=(",", ":"), default=str)
    OUT.write(line + "\n")
    OUT.flush()
    return len(line) + 1


class SetupFailure(Exception):
    """A setup stage refused: `stage`, a one-line `message`, the Python parameter names involved."""

    def __init__(self, stage, kind, message, parameters=None):
        Exception.__init__(self, message)
        self.stage, self.kind, self.message, self.parameters = stage, kind, message, parameters or {}


def log_exception(stage):
    sys.stderr.write("tvis worker: %s failed:\n" % stage)
    traceback.print_exc(file=sys.stderr)
    sys.stderr.flush()


def fixture_file(exc):
    """The missing fixture/checkpoint file of an OSError, from its `filename` attribute (never its text)."""
    e = exc
    while e is not None:
        if isinstance(e, (FileNotFoundError, IsADirectoryError, PermissionError)) and getattr(e, "filename", None):
            return str(e.filename)
        e = e.__cause__ or e.__context__
    return None


def run_stage(stage, fn):
    """Runs one setup stage; any exception becomes a SetupFailure naming it (the traceback goes to the log)."""
    emit({"t": "stage", "stage": stage})
    try:
        return fn()
    except SetupFailure:
        raise
    except BaseException as e:  # noqa: B902 - a stage may fail any way at all
        if isinstance(e, KeyboardInterrupt):
            raise
        log_exception(stage)
        missing = fixture_file(e)
        if missing is not None:
            raise SetupFailure("fixture", "setup", "missing fixture or checkpoint file: %s (during %s)" % (missing, stage),
                               {"file": missing})
        if isinstance(e, ModuleNotFoundError) and getattr(e, "name", None):
            raise SetupFailure(stage, "setup", "%s failed: no module named %s (ModuleNotFoundError; traceback in the log)"
                               % (stage, e.name), {"module": e.name})
        raise SetupFailure(stage, "setup", "%s failed: %s (traceback in the log)" % (stage, type(e).__name__))


# ------------------------------------------------------------ environment ---

def apply_environment(job, torch):
    if job.get("deterministic", True):
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
    seed = job.get("seed")
    if seed is not None:
        random.seed(seed)
        torch.manual_seed(seed)
        try:
            import numpy
            numpy.random.seed(seed & 0xFFFFFFFF)
        except ImportError:
            pass


def check_device(device, torch):
    kind, _, index = device.partition(":")
    if kind == "cpu":
        return
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise SetupFailure("device", "setup", "device %s is not available: torch.cuda.is_available() is False" % device)
        n = torch.cuda.device_count()
        i = int(index) if index else 0
        if i >= n:
            raise SetupFailure("device", "setup", "device %s is not available: %d CUDA device(s)" % (device, n))
        torch.cuda.set_device(i)
        return
    if kind == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise SetupFailure("device", "setup", "device mps is not available in this torch")
        return
    raise SetupFailure("device", "setup", "device %s is not supported" % device)


# ---------------------------------------------------------------- loading ---

def module_name_for(path, workspace):
    """The dotted module a workspace file is imported as (so it is the same module object the model uses)."""
    rel = os.path.relpath(path, workspace)
    if rel.startswith(".."):
        return None
    parts = rel[:-3].split(os.sep) if rel.endswith(".py") else None
    if not parts:
        return None
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else None


def load_callable(spec, workspace, stage):
    import importlib
    import importlib.util
    path = spec["file"]
    if not os.path.isfile(path):
        raise SetupFailure(stage, "setup", "%s file is missing: %s" % (stage, path), {"file": path})
    name = module_name_for(path, workspace)
    if name is not None:
        mod = importlib.import_module(name)
    else:
        s = importlib.util.spec_from_file_location("_tvis_loaded_%d" % abs(hash(path)), path)
        mod = importlib.util.module_from_spec(s)
        s.loader.exec_module(mod)
    fn = getattr(mod, spec["callable"], None)
    if not callable(fn):
        raise SetupFailure(stage, "setup", "%s defines no callable %s" % (path, spec["callable"]),
                           {"callable": spec["callable"]})
    return fn


def call_checked(fn, args, kwargs, stage, what):
    """Calls fn after binding args/kwargs to its signature, so wrong parameter names are named."""
    problem = binding_problem(fn, args, kwargs)
    if problem is not None:
        raise SetupFailure(stage, "binding", "%s: %s" % (what, problem["message"]), problem["parameters"])
    return fn(*args, **kwargs)


def binding_problem(fn, args, kwargs):
    """Missing / unexpected parameter names of calling fn(*args, **kwargs), or None when it binds."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    P = inspect.Parameter
    positional = [p for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    var_pos = any(p.kind == P.VAR_POSITIONAL for p in params)
    var_kw = any(p.kind == P.VAR_KEYWORD for p in params)
    names = {p.name: p for p in params if p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD)}
    bound = set(p.name for p in positional[:len(args)])
    unexpected, twice = [], []
    extra_positional = 0 if var_pos else max(0, len(args) - len(positional))
    for k in kwargs:
        p = names.get(k)
        if p is None or p.kind == P.POSITIONAL_ONLY:
            if not var_kw:
                unexpected.append(k)
        elif k in bound:
            twice.append(k)
    missing = [p.name for p in params
               if p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD) and p.default is P.empty
               and p.name not in bound and not (p.name in kwargs and p.kind != P.POSITIONAL_ONLY)]
    if not (unexpected or twice or missing or extra_positional):
        return None
    parts = []
    if missing:
        parts.append("missing " + ", ".join(missing))
    if unexpected:
        parts.append("unexpected " + ", ".join(unexpected))
    if twice:
        parts.append("given twice " + ", ".join(twice))
    if extra_positional:
        parts.append("%d positional argument(s) more than the %d it takes" % (extra_positional, len(positional)))
    return {"message": "; ".join(parts),
            "parameters": {"missing": missing, "unexpected": unexpected, "twice": twice,
                           "extra_positional": extra_positional,
                           "signature": "(" + ", ".join(str(p) for p in params) + ")"}}


def build_model(job, workspace, torch):
    import importlib
    cls = run_stage("import", lambda: getattr(importlib.import_module(job["module"]), job["class"]))
    if not isinstance(cls, type) or not issubclass(cls, torch.nn.Module):
        raise SetupFailure("import", "setup", "%s:%s is not a torch.nn.Module class" % (job["module"], job["class"]))
    if job.get("factory"):
        f = job["factory"]
        fn = run_stage("factory", lambda: load_callable(f, workspace, "factory"))
        model = run_stage("factory", lambda: call_checked(fn, [], f.get("kwargs") or {}, "factory", "factory " + f["callable"]))
        if type(model) is not cls:
            t = type(model)
            raise SetupFailure("factory", "setup", "factory %s returned %s.%s, not exactly %s:%s" % (
                f["callable"], t.__module__, t.__qualname__, job["module"], job["class"]))
        return model
    init = job.get("init") or {"args": [], "kwargs": {}}
    return run_stage("construction", lambda: call_checked(cls, list(init.get("args", [])), dict(init.get("kwargs", {})),
                                                          "construction", job["class"] + ".__init__"))


# ----------------------------------------------------------------- inputs ---

def dtype_of(torch, name):
    return getattr(torch, name)


def make_tensor(torch, v, device):
    shape = [int(d) for d in v["shape"]]
    dtype = dtype_of(torch, v.get("dtype", "float32"))
    g = v.get("generator") or {"kind": "normal", "seed": 0}
    kind = g["kind"]
    gen = torch.Generator().manual_seed(int(g.get("seed", 0)))
    if kind == "full":
        t = torch.full(shape, g["value"], dtype=dtype)
    elif kind == "zeros":
        t = torch.zeros(shape, dtype=dtype)
    elif kind == "ones":
        t = torch.ones(shape, dtype=dtype)
    elif kind == "arange":
        n = 1
        for d in shape:
            n *= d
        t = torch.arange(n).reshape(shape).to(dtype)
    elif kind == "normal":
        t = torch.empty(shape, dtype=dtype).normal_(g.get("mean", 0.0), g.get("std", 1.0), generator=gen)
    elif kind == "uniform":
        t = torch.empty(shape, dtype=dtype).uniform_(g.get("low", 0.0), g.get("high", 1.0), generator=gen)
    elif kind == "randint":
        t = torch.randint(int(g["low"]), int(g["high"]), shape, generator=gen, dtype=dtype)
    else:
        raise SetupFailure("inputs", "setup", "generator %s is not supported" % kind)
    t = t.to(device)
    if v.get("requires_grad"):
        t.requires_grad_(True)
    return t


def materialise(torch, v, device):
    if isinstance(v, dict) and "kind" in v:
        k = v["kind"]
        if k == "tensor":
            return make_tensor(torch, v, device)
        if k == "none":
            return None
        if k == "list":
            return [materialise(torch, x, device) for x in v["items"]]
        if k == "tuple":
            return tuple(materialise(torch, x, device) for x in v["items"])
        if k == "dict":
            return {key: materialise(torch, x, device) for key, x in v["items"].items()}
    return v


MAX_ELEMENTS, MAX_TENSORS, MAX_BYTES, MAX_DEPTH, MAX_ENTRIES = 4194304, 256, 64 << 20, 16, 1024


def check_factory_inputs(torch, value):
    """The bounds of SPEC.md on what an input factory returned (checked after it returns); repeated
    references to one tensor count once and stay shared."""
    seen = set()
    totals = {"elements": 0, "tensors": 0, "bytes": 0}

    def walk(v, depth, path):
        if depth > MAX_DEPTH:
            raise SetupFailure("inputs", "setup", "input factory result nested deeper than %d at %s" % (MAX_DEPTH, path))
        if isinstance(v, torch.Tensor):
            if id(v) in seen:
                return
            seen.add(id(v))
            totals["tensors"] += 1
            totals["elements"] += v.numel()
            totals["bytes"] += v.numel() * v.element_size()
        elif isinstance(v, (list, tuple)):
            if len(v) > MAX_ENTRIES:
                raise SetupFailure("inputs", "setup", "input factory result has %d entries at %s, more than %d" % (len(v), path, MAX_ENTRIES))
            for i, x in enumerate(v):
                walk(x, depth + 1, "%s[%d]" % (path, i))
        elif isinstance(v, dict):
            if len(v) > MAX_ENTRIES:
                raise SetupFailure("inputs", "setup", "input factory result has %d entries at %s, more than %d" % (len(v), path, MAX_ENTRIES))
            for k, x in v.items():
                walk(x, depth + 1, "%s.%s" % (path, k))
        elif not (v is None or isinstance(v, (bool, int, float, str))):
            raise SetupFailure("inputs", "setup", "input factory returned a %s at %s (tensors, numbers, strings, None, lists, tuples, dicts)"
                               % (type(v).__name__, path))

    walk(value, 0, "result")
    for key, limit in (("elements", MAX_ELEMENTS), ("tensors", MAX_TENSORS), ("bytes", MAX_BYTES)):
        if totals[key] > limit:
            raise SetupFailure("inputs", "setup", "input factory result has %d tensor %s, more than %d" % (totals[key], key, limit))


def run_input_factory(job, workspace):
    """The input factory's result: a dict (named inputs, or {"args", "kwargs"}), else a SetupFailure."""
    f = job["input_factory"]
    fn = run_stage("inputs", lambda: load_callable(f, workspace, "inputs"))
    value = run_stage("inputs", lambda: call_checked(fn, [], f.get("kwargs") or {}, "inputs", "input factory " + f["callable"]))
    if not isinstance(value, dict):
        raise SetupFailure("inputs", "setup", "input factory %s returned a %s, not a dict of named inputs or {\"args\", \"kwargs\"}"
                           % (f["callable"], type(value).__name__))
    return value


def factory_arguments(value):
    """(args, kwargs) of an input factory's dict, once its bounds are checked."""
    if set(value) == {"args", "kwargs"}:
        if not isinstance(value["args"], (list, tuple)) or not isinstance(value["kwargs"], dict):
            raise SetupFailure("inputs", "setup", "input factory's args must be a list or tuple and kwargs a dict")
        return list(value["args"]), dict(value["kwargs"])
    for k in value:
        if not isinstance(k, str):
            raise SetupFailure("inputs", "setup", "input factory returned a non-string key %r" % (k,))
    return [], dict(value)


def factory_inputs(torch, job, workspace, model):
    value = run_input_factory(job, workspace)
    check_factory_inputs(torch, value)
    return factory_arguments(value)


AUTOMATIC_LAYERS = ("Linear", "Conv1d", "Conv2d", "Conv3d", "Embedding")


def automatic_inputs(torch, model, device):
    """One deterministic example from the first constraining layer (SPEC.md), or a SetupFailure asking for setup."""
    try:
        sig = inspect.signature(model.forward)
    except (TypeError, ValueError):
        raise SetupFailure("inputs", "setup", "forward's signature is unknown: give a profile or a declaration")
    P = inspect.Parameter
    params = list(sig.parameters.values())
    if any(p.kind == P.VAR_POSITIONAL for p in params):
        raise SetupFailure("inputs", "setup", "forward takes *%s: automatic inputs need a known positional signature; give a profile"
                           % [p.name for p in params if p.kind == P.VAR_POSITIONAL][0])
    kwonly = [p.name for p in params if p.kind == P.KEYWORD_ONLY and p.default is P.empty]
    if kwonly:
        raise SetupFailure("inputs", "setup", "forward has required keyword-only %s: give a profile" % ", ".join(kwonly),
                           {"missing": kwonly})
    required = [p.name for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD) and p.default is P.empty]
    if not required:
        raise SetupFailure("inputs", "setup", "forward has no required input: automatic inputs never guess zero inputs; give a profile")
    if len(required) > 3:
        raise SetupFailure("inputs", "setup", "forward has %d required inputs (more than 3): give a profile" % len(required))
    if len(required) > 1:
        raise SetupFailure("inputs", "setup", "forward has %d required inputs (%s); the constructed model constrains only the first: give a profile or a declaration"
                           % (len(required), ", ".join(required)), {"missing": required[1:]})
    first = None
    for m in model.modules():
        if type(m).__name__ in AUTOMATIC_LAYERS and type(m).__module__.startswith("torch.nn"):
            first = m
            break
    if first is None:
        raise SetupFailure("inputs", "setup", "no constructed layer (Linear, Conv1d/2d/3d, Embedding) fixes the input shape: give a profile or a declaration")
    name = type(first).__name__
    g = torch.Generator().manual_seed(0)
    if name == "Linear":
        t = torch.empty([1, first.in_features]).normal_(generator=g)
    elif name.startswith("Conv"):
        n = int(name[4])
        t = torch.empty([1, first.in_channels] + [32] * n).normal_(generator=g)
    else:
        t = torch.zeros([1, 1], dtype=torch.int64)
    return [t.to(device)], {}, "%s %s → %s %s" % (name, constraint_text(first, name), list(t.shape), str(t.dtype).replace("torch.", ""))


def constraint_text(m, name):
    if name == "Linear":
        return "(in_features=%d)" % m.in_features
    if name.startswith("Conv"):
        return "(in_channels=%d)" % m.in_channels
    return "(num_embeddings=%d)" % m.num_embeddings


# ---------------------------------------------------------------- capture ---

def describe(torch, t, name):
    if isinstance(t, torch.Tensor):
        return {"name": name, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
    return {"name": name, "shape": [], "dtype": type(t).__name__, "tensor": False}


def flatten(torch, v, name, out, depth=0):
    """Every tensor of a nested value, named by its path (output, output[0], output.logits)."""
    if depth > MAX_DEPTH:
        return out
    if isinstance(v, torch.Tensor):
        out.append((name, v))
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            flatten(torch, x, "%s[%d]" % (name, i), out, depth + 1)
    elif isinstance(v, dict):
        for k, x in v.items():
            flatten(torch, x, "%s.%s" % (name, k), out, depth + 1)
    elif hasattr(v, "__dict__") and hasattr(v, "keys") and callable(v.keys):  # ModelOutput-like
        for k in v.keys():
            flatten(torch, v[k], "%s.%s" % (name, k), out, depth + 1)
    return out


def make_capture(torch, model, budget):
    """Module calls as graph nodes (leaf modules), edges by tensor identity, and the operands of
    the first failing watched call. Tensors seen are kept alive for the capture so ids stay unique."""
    from torch.overrides import TorchFunctionMode
    names = {id(m): (n or type(model).__name__) for n, m in model.named_modules()}
    state = {"next": 1, "bytes": 0, "truncated": False, "failure": None, "stack": []}
    producer = {}   # id(tensor) -> the node ids it was computed from (a tuple)
    keep = []

    def node_inputs(value, label):
        edges = []
        for name, t in flatten(torch, value, label, []):
            for source in producer.get(id(t), (0,)):
                edges.append({"from": source, "name": name, "shape": list(t.shape),
                              "dtype": str(t.dtype).replace("torch.", "")})
        return edges

    def emit_node(node):
        if state["truncated"]:
            return
        line = json.dumps(dict(node, t="node"), separators=(",", ":"))
        if state["bytes"] + len(line) + 1 > budget:
            state["truncated"] = True
            emit({"t": "truncated", "bytes": state["bytes"]})
            return
        state["bytes"] += emit(dict(node, t="node"))

    def new_id():
        i = state["next"]
        state["next"] += 1
        return i

    def mark(value, node_id):
        for _, t in flatten(torch, value, "", []):
            producer[id(t)] = (node_id,)
            keep.append(t)

    def pre_hook(m, args):
        if id(m) not in names:
            return
        leaf = not any(True for _ in m.children())
        state["stack"].append({"module": names[id(m)], "op": "module:" + type(m).__name__, "leaf": leaf,
                               "inputs": node_inputs(list(args), "input") if leaf else None})

    def post_hook(m, args, output):
        if id(m) not in names or not state["stack"]:
            return
        call = state["stack"].pop()
        if not call["leaf"]:
            return
        nid = new_id()
        outs = [describe(torch, t, n) for n, t in flatten(torch, output, "output", [])]
        emit_node({"id": nid, "op": call["op"], "module": call["module"], "inputs": call["inputs"], "outputs": outs})
        mark(output, nid)

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = getattr(func, "__name__", "")
            if name in WATCHED:
                try:
                    result = func(*args, **kwargs)
                except Exception as e:
                    if state["failure"] is None:
                        state["failure"] = failure_record(torch, name, args, kwargs, e, state["stack"], node_inputs)
                    raise
            else:
                result = func(*args, **kwargs)
            in_leaf = state["stack"] and state["stack"][-1]["leaf"]
            if not in_leaf and name not in ("__get__", "__set__") and isinstance(result, (torch.Tensor, list, tuple)):
                sources = []
                for _, t in flatten(torch, [list(args), kwargs], "", []):
                    for s in producer.get(id(t), ()):
                        if s not in sources:
                            sources.append(s)
                if sources:
                    for _, t in flatten(torch, result, "", []):
                        if id(t) not in producer:
                            producer[id(t)] = tuple(sources[:16])
                            keep.append(t)
            return result

    return state, Mode, pre_hook, post_hook, mark, node_inputs, emit_node, new_id


def failure_record(torch, op, args, kwargs, exc, stack, node_inputs):
    """The operands of a watched call that raised: name, shape, dtype (+ min/max of integer indices)."""
    operands, options = [], {}
    names = OPERAND_NAMES.get(op, ())
    values = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
    for i, v in enumerate(values):
        n = names[i] if i < len(names) else "arg%d" % i
        if isinstance(v, torch.Tensor):
            d = describe(torch, v, n)
            if not v.is_floating_point() and not v.is_complex() and v.numel() and v.dtype != torch.bool:
                d["min"], d["max"] = int(v.min()), int(v.max())
            operands.append(d)
        elif n in ("stride", "padding", "dilation", "groups", "padding_idx") and isinstance(v, (int, tuple, list, str)):
            options[n] = list(v) if isinstance(v, tuple) else v
    module = stack[-1]["module"] if stack else ""
    return {"op": op, "operands": operands, "options": options, "module": module, "exception": exc,
            "inputs": node_inputs([v for v in values if isinstance(v, torch.Tensor)][:1], "input")}


def caused_by(exc, recorded):
    e, seen = exc, 0
    while e is not None and seen < 32:
        if e is recorded:
            return True
        e = e.__cause__ or e.__context__
        seen += 1
    return False


def input_label(path):
    """input.args[0] -> args[0]; input.kwargs.mask -> mask."""
    return path.replace("input.args", "args", 1).replace("input.kwargs.", "", 1)


def run_forward(torch, job, model, args, kwargs):
    """The forward under the capture; returns the result fields (ok, outputs, failure)."""
    import torch.nn.modules.module as mm
    state, Mode, pre_hook, post_hook, mark, node_inputs, emit_node, new_id = make_capture(
        torch, model, int(job.get("max_capture_bytes", 4 << 20)))
    # One input node per distinct input tensor (repeated references share one).
    seen = {}
    for name, t in flatten(torch, {"args": list(args), "kwargs": kwargs}, "input", []):
        if id(t) in seen:
            continue
        nid = new_id()
        seen[id(t)] = nid
        label = input_label(name)
        emit_node({"id": nid, "op": "input", "module": label, "inputs": [], "outputs": [describe(torch, t, label)]})
        mark(t, nid)
    h1 = mm.register_module_forward_pre_hook(pre_hook)
    h2 = mm.register_module_forward_hook(post_hook)
    emit({"t": "stage", "stage": "forward"})
    try:
        with torch.set_grad_enabled(bool(job.get("grad_enabled"))):
            with Mode():
                output = model(*args, **kwargs)
    except Exception as e:
        log_exception("forward")
        f = state["failure"]
        result = {"ok": False, "stage": "forward", "exception_type": type(e).__name__,
                  "truncated": state["truncated"]}
        if f is not None and caused_by(e, f["exception"]):
            nid = new_id()
            emit_node({"id": nid, "op": f["op"], "module": f["module"], "inputs": f["inputs"], "outputs": [], "failed": True})
            result.update(kind="operator", failure={"op": f["op"], "operands": f["operands"], "options": f["options"],
                                                    "module": f["module"], "node": nid})
        else:
            module = state["stack"][-1]["module"] if state["stack"] else ""
            result.update(kind="assertion" if isinstance(e, AssertionError) else "forward", module=module)
        return result
    finally:
        h1.remove()
        h2.remove()
    outs = flatten(torch, output, "output", [])
    nid = new_id()
    emit_node({"id": nid, "op": "output", "module": "output", "inputs": node_inputs(output, "output"),
               "outputs": [describe(torch, t, n) for n, t in outs]})
    return {"ok": True, "stage": "", "outputs": [describe(torch, t, n) for n, t in outs], "truncated": state["truncated"]}


MAX_MODULE_FILES = 4096


def workspace_files(workspace):
    """The files of loaded modules that lie under the workspace (realpaths, sorted, bounded)."""
    root = os.path.realpath(workspace)
    files = set()
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if not isinstance(f, str):
            continue
        real = os.path.realpath(f)
        if real.startswith(root + os.sep) and os.path.isfile(real):
            files.add(real)
    return sorted(files)[:MAX_MODULE_FILES]


def main():
    job = json.loads(sys.stdin.read())
    workspace = job["workspace"]
    sys.path.insert(0, workspace)
    result = {"ok": False}
    try:
        if job.get("framework") == "jax":
            result = jax_main(job, workspace)  # worker_jax.py, appended to this script
        else:
            result = torch_main(job, workspace)
    except SetupFailure as s:
        result = {"ok": False, "stage": s.stage, "kind": s.kind, "message": s.message, "parameters": s.parameters}
    except BaseException as e:  # the worker's own failure: still one result line
        log_exception("worker")
        result = {"ok": False, "stage": "worker", "kind": "setup", "message": "the worker failed: %s (traceback in the log)" % type(e).__name__}
    emit({"t": "modules", "files": workspace_files(workspace)})
    emit(dict(result, t="result"))


def torch_main(job, workspace):
    """The torch capture: result fields (ok, stage, outputs, failure, ...); a SetupFailure for a refused stage."""
    import torch
    emit({"t": "ready", "torch": torch.__version__, "python": sys.version.split()[0]})
    run_stage("device", lambda: check_device(job.get("device", "cpu"), torch))
    apply_environment(job, torch)
    os.chdir(job.get("cwd") or workspace)
    device = job.get("device", "cpu")
    model = build_model(job, workspace, torch)
    run_stage("construction", lambda: model.to(device))
    model.train(job.get("mode") == "train")
    automatic = None
    if job.get("input_factory"):
        args, kwargs = factory_inputs(torch, job, workspace, model)
    elif job.get("automatic"):
        args, kwargs, automatic = run_stage("inputs", lambda: automatic_inputs(torch, model, device))
    else:
        inputs = job.get("inputs") or {"args": [], "kwargs": {}}
        args, kwargs = run_stage("inputs", lambda: (materialise(torch, {"kind": "list", "items": inputs.get("args", [])}, device),
                                                    materialise(torch, {"kind": "dict", "items": inputs.get("kwargs", {})}, device)))
    emit({"t": "inputs", "inputs": [describe(torch, t, input_label(n)) for n, t in flatten(torch, {"args": list(args), "kwargs": kwargs}, "input", [])],
          "automatic": automatic})
    emit({"t": "stage", "stage": "binding"})
    problem = binding_problem(model.forward, args, kwargs)
    if problem is not None:
        raise SetupFailure("binding", "binding", "forward(): " + problem["message"], problem["parameters"])
    return run_forward(torch, job, model, args, kwargs)
