# worker_jax.py: framework = "jax" in the capture worker. CMake appends this
# file to worker.py (one `python -I -c` string, so it uses worker.py's emit,
# run_stage, SetupFailure, load_callable, call_checked, binding_problem,
# input_label and log_exception), then calls main(), which hands a job whose
# "framework" is "jax" to jax_main().
#
# What a JAX profile's model is (job "module", "class"):
#   a flax.linen Module class     built from init, its variables from `init`
#                                 with PRNGKey(seed or 0), traced abstractly
#   a flax.nnx Module class       built from init (given rngs=nnx.Rngs(seed or 0)
#                                 when its __init__ takes `rngs` and none is given)
#   a plain function              traced as called (no init, no factory)
#   with a factory                its result is exactly an instance of the class;
#                                 a linen module may come as (module, variables)
# Shapes come from tracing (jax.eval_shape / jax.make_jaxpr): nothing is
# computed, so a shape failure is found without running the model. The graph
# is the traced jaxpr's top-level equations (a call such as pjit or
# custom_jvp_call is one node), named by the Flax module path of the trace's
# name stack. A failing dot_general or conv_general_dilated records its
# operands' shapes, dtypes and dimension numbers where the primitive is bound;
# the exception text is never read.
# The profile's mode: nnx modules get .eval() / .train(); linen modules take
# their own arguments (a `train` input) and run with every collection mutable
# and a "dropout" key, so BatchNorm and Dropout trace in either mode.
# grad_enabled does not apply: JAX keeps no autograd tape.

JAX_WATCHED = ("dot_general", "conv_general_dilated")


def jax_main(job, workspace):
    """The JAX capture: result fields as run_forward's, after the same stage lines."""
    if job.get("deterministic", True):
        flags = os.environ.get("XLA_FLAGS", "")
        if "xla_gpu_deterministic_ops" not in flags:
            os.environ["XLA_FLAGS"] = (flags + " --xla_gpu_deterministic_ops=true").strip()
    import jax
    import numpy
    emit({"t": "ready", "jax": jax.__version__, "python": sys.version.split()[0]})
    device = run_stage("device", lambda: jax_device(jax, job.get("device", "cpu")))
    seed = job.get("seed")
    if seed is not None:
        random.seed(seed)
        numpy.random.seed(seed & 0xFFFFFFFF)
    os.chdir(job.get("cwd") or workspace)
    with jax.default_device(device):
        model = jax_model(job, workspace, jax)
        if job.get("automatic"):
            raise SetupFailure("inputs", "setup", "automatic inputs are made from torch layers; a JAX model needs a profile's inputs")
        if job.get("input_factory"):
            args, kwargs = jax_factory_inputs(jax, job, workspace)
        else:
            inputs = job.get("inputs") or {"args": [], "kwargs": {}}
            args, kwargs = run_stage("inputs", lambda: (jax_materialise(jax, {"kind": "list", "items": inputs.get("args", [])}),
                                                        jax_materialise(jax, {"kind": "dict", "items": inputs.get("kwargs", {})})))
        emit({"t": "inputs", "inputs": [jax_describe(a, input_label(n)) for n, a in
                                        jax_leaves(jax, {"args": list(args), "kwargs": kwargs}, "input")], "automatic": None})
        emit({"t": "stage", "stage": "binding"})
        problem = binding_problem(model.signature_target, args, kwargs)
        if problem is not None:
            raise SetupFailure("binding", "binding", "%s: %s" % (model.call_name, problem["message"]), problem["parameters"])
        return jax_trace(jax, job, model, args, kwargs)


def jax_device(jax, device):
    kind, _, index = device.partition(":")
    platform = {"cpu": "cpu", "cuda": "gpu"}.get(kind)
    if platform is None:
        raise SetupFailure("device", "setup", "device %s is not supported for framework = \"jax\" (cpu, cuda)" % device)
    try:
        devices = jax.devices(platform)
    except RuntimeError:
        raise SetupFailure("device", "setup", "device %s is not available: this jaxlib has no %s backend" % (device, platform))
    i = int(index) if index else 0
    if i >= len(devices):
        raise SetupFailure("device", "setup", "device %s is not available: %d %s device(s)" % (device, len(devices), platform))
    return devices[i]


# ------------------------------------------------------------------ model ---

class JaxModel(object):
    """What is traced: trace_fn(shapes_of) gives (fn, prefix), traced as fn(prefix, *args, **kwargs);
    prefix is the variables (abstract shapes or arrays) or None, so the jaxpr's leading invars are its
    leaves. shapes_of(f) is jax.eval_shape of f(args, kwargs) with the same inputs as the trace."""

    def __init__(self, call_name, signature_target, trace_fn):
        self.call_name, self.signature_target = call_name, signature_target
        self.trace_fn = trace_fn


def flax_kinds():
    """(linen Module class, nnx Module class); either None where Flax is not installed."""
    linen = nnx = None
    try:
        import flax.linen as linen_mod
        linen = linen_mod.Module
    except ImportError:
        pass
    try:
        from flax import nnx as nnx_mod
        nnx = nnx_mod.Module
    except ImportError:
        pass
    return linen, nnx


def jax_model(job, workspace, jax):
    linen, nnx = flax_kinds()
    import importlib
    obj = run_stage("import", lambda: getattr(importlib.import_module(job["module"]), job["class"]))
    is_linen = isinstance(obj, type) and linen is not None and issubclass(obj, linen)
    is_nnx = isinstance(obj, type) and nnx is not None and issubclass(obj, nnx)
    if isinstance(obj, type) and not (is_linen or is_nnx):
        raise SetupFailure("import", "setup", "%s:%s is a class but not a Flax module (flax.linen.Module or flax.nnx.Module): "
                           "framework = \"jax\" takes a Flax module class or a function" % (job["module"], job["class"]))
    if not isinstance(obj, type) and not callable(obj):
        raise SetupFailure("import", "setup", "%s:%s is a %s, not a function or a Flax module class"
                           % (job["module"], job["class"], type(obj).__name__))
    if job.get("factory"):
        if not isinstance(obj, type):
            raise SetupFailure("factory", "setup", "%s is a function: a factory builds a Flax module, not a function" % job["class"])
        return factory_model(job, workspace, jax, obj, is_linen)
    if is_linen:
        init = job.get("init") or {}
        module = run_stage("construction", lambda: call_checked(obj, list(init.get("args", [])), dict(init.get("kwargs", {})),
                                                                "construction", job["class"] + ".__init__"))
        return linen_model(job, jax, module, None)
    if is_nnx:
        return nnx_model(job, jax, nnx_construct(job, obj))
    init = job.get("init") or {}
    if init.get("args") or init.get("kwargs"):
        raise SetupFailure("construction", "setup", "%s is a function: init arguments do not apply (give its inputs)" % job["class"])
    return function_model(obj, job["class"])


def factory_model(job, workspace, jax, cls, is_linen):
    """A factory's result: exactly an instance of the profile's class; a linen module may come with its
    variables as (module, variables), which are then traced instead of init's."""
    f = job["factory"]
    fn = run_stage("factory", lambda: load_callable(f, workspace, "factory"))
    made = run_stage("factory", lambda: call_checked(fn, [], f.get("kwargs") or {}, "factory", "factory " + f["callable"]))
    variables = None
    if is_linen and isinstance(made, tuple) and len(made) == 2:
        made, variables = made
    if type(made) is not cls:
        t = type(made)
        raise SetupFailure("factory", "setup", "factory %s returned %s.%s, not exactly %s:%s%s" % (
            f["callable"], t.__module__, t.__qualname__, job["module"], job["class"],
            " (or (module, variables))" if is_linen else ""))
    return linen_model(job, jax, made, variables) if is_linen else nnx_model(job, jax, made)


def nnx_construct(job, cls):
    from flax import nnx
    init = job.get("init") or {}
    args, kwargs = list(init.get("args", [])), dict(init.get("kwargs", {}))
    try:
        takes_rngs = "rngs" in inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        takes_rngs = False
    if takes_rngs and "rngs" not in kwargs:
        kwargs["rngs"] = nnx.Rngs(job.get("seed") or 0)
    return run_stage("construction", lambda: call_checked(cls, args, kwargs, "construction", job["class"] + ".__init__"))


def linen_model(job, jax, module, variables):
    key = jax.random.PRNGKey(job.get("seed") or 0)
    init_key, dropout_key = jax.random.split(key)

    def trace_fn(shapes_of):
        prefix = variables
        if prefix is None:
            # Parameters as shapes only: init traced, never run (its failure is the forward's).
            prefix = shapes_of(lambda a, k: module.init({"params": init_key, "dropout": dropout_key}, *a, **k))
        return (lambda v, *a, **k: module.apply(v, *a, rngs={"dropout": dropout_key}, mutable=True, **k)[0]), prefix

    return JaxModel(type(module).__name__ + ".__call__()", module.__call__, trace_fn)


def nnx_model(job, jax, module):
    from flax import nnx
    if job.get("mode") == "eval" and hasattr(module, "eval"):
        module.eval()
    elif job.get("mode") == "train" and hasattr(module, "train"):
        module.train()
    graphdef, state = nnx.split(module)
    root = type(module).__name__

    def call(s, *a, **k):
        m = nnx.merge(graphdef, s)
        with nnx_names(jax, nnx, m), jax.named_scope(root):
            return m(*a, **k)

    return JaxModel(root + ".__call__()", module.__call__, lambda shapes_of: (call, state))


class nnx_names(object):
    """While tracing, each nnx submodule's __call__ runs under jax.named_scope(its attribute name), so
    the jaxpr's name stack carries the module path as linen's does; the classes are restored on exit."""

    def __init__(self, jax, nnx, root):
        self.jax, self.names, self.classes, self.patched = jax, {}, set(), []
        for path, node in nnx.iter_graph(root):
            if isinstance(node, nnx.Module) and path:
                self.names[id(node)] = str(path[-1])
                self.classes.add(type(node))

    def __enter__(self):
        for cls in self.classes:
            original = cls.__dict__.get("__call__")
            if original is not None:
                self.patched.append((cls, original))
                setattr(cls, "__call__", self._scoped(original))
        return self

    def _scoped(self, original):
        names, jax = self.names, self.jax

        def call(inner, *a, **k):
            name = names.get(id(inner))
            if name is None:
                return original(inner, *a, **k)
            with jax.named_scope(name):
                return original(inner, *a, **k)
        return call

    def __exit__(self, *exc):
        for cls, original in self.patched:
            setattr(cls, "__call__", original)
        return False


def function_model(fn, name):
    def trace_fn(shapes_of):
        return (lambda _, *a, **k: fn(*a, **k)), None
    return JaxModel("%s()" % name, fn, trace_fn)


# ----------------------------------------------------------------- inputs ---

def jax_dtype(jax, name):
    import jax.numpy as jnp
    dt = getattr(jnp, name, None)
    if dt is None:
        raise SetupFailure("inputs", "setup", "dtype %s has no JAX counterpart" % name)
    return dt


def jax_make_array(jax, v):
    import numpy
    import jax.numpy as jnp
    shape = tuple(int(d) for d in v["shape"])
    dtype = jax_dtype(jax, v.get("dtype", "float32"))
    g = v.get("generator") or {"kind": "normal", "seed": 0}
    kind = g["kind"]
    rng = numpy.random.default_rng(int(g.get("seed", 0)))
    if kind == "full":
        a = numpy.full(shape, g["value"])
    elif kind == "zeros":
        a = numpy.zeros(shape)
    elif kind == "ones":
        a = numpy.ones(shape)
    elif kind == "arange":
        a = numpy.arange(int(numpy.prod(shape))).reshape(shape)
    elif kind == "normal":
        a = rng.normal(g.get("mean", 0.0), g.get("std", 1.0), shape)
    elif kind == "uniform":
        a = rng.uniform(g.get("low", 0.0), g.get("high", 1.0), shape)
    elif kind == "randint":
        a = rng.integers(int(g["low"]), int(g["high"]), shape)
    else:
        raise SetupFailure("inputs", "setup", "generator %s is not supported" % kind)
    # int64 / float64 become JAX's default 32-bit types unless jax_enable_x64 is set.
    return jnp.asarray(a, dtype=dtype)


def jax_materialise(jax, v):
    if isinstance(v, dict) and "kind" in v:
        k = v["kind"]
        if k == "tensor":
            return jax_make_array(jax, v)
        if k == "none":
            return None
        if k == "list":
            return [jax_materialise(jax, x) for x in v["items"]]
        if k == "tuple":
            return tuple(jax_materialise(jax, x) for x in v["items"])
        if k == "dict":
            return {key: jax_materialise(jax, x) for key, x in v["items"].items()}
    return v


def jax_factory_inputs(jax, job, workspace):
    import numpy
    value = run_input_factory(job, workspace)
    elements = sum(int(numpy.prod(a.shape)) for _, a in jax_leaves(jax, value, "result"))
    if elements > MAX_ELEMENTS:
        raise SetupFailure("inputs", "setup", "input factory result has %d array elements, more than %d" % (elements, MAX_ELEMENTS))
    return factory_arguments(value)


# ---------------------------------------------------------------- capture ---

def is_array(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, (str, bytes, type))


def jax_describe(a, name):
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        return {"name": name, "shape": [int(d) for d in a.shape], "dtype": str(a.dtype)}
    return {"name": name, "shape": [], "dtype": type(a).__name__, "tensor": False}


def jax_leaves(jax, value, name):
    """Every array of a pytree, named by its path (output, output[0], output.logits)."""
    out = []
    leaves, _ = jax.tree_util.tree_flatten_with_path(value)
    for path, leaf in leaves[:MAX_TENSORS * 16]:
        if not is_array(leaf):
            continue
        label = name
        for k in path:
            if hasattr(k, "key"):
                label += "[%d]" % k.key if isinstance(k.key, int) else ".%s" % k.key
            elif hasattr(k, "idx"):
                label += "[%d]" % k.idx
            elif hasattr(k, "name"):
                label += ".%s" % k.name
        out.append((label, leaf))
    return out


def watch_primitives(state):
    """Wraps the bind of dot_general and conv_general_dilated so that the first one that raises
    leaves its operands in state["failure"]; returns the undo."""
    try:
        from jax.extend.core import primitives as P
    except ImportError:
        return lambda: None
    undo = []
    for name in JAX_WATCHED:
        prim = getattr(P, name + "_p", None)
        if prim is None:
            continue
        original = prim.__dict__.get("bind")

        def bind(*args, _prim=prim, _name=name, **params):
            try:
                return type(_prim).bind(_prim, *args, **params)
            except Exception as e:
                if state["failure"] is None:
                    state["failure"] = jax_failure_record(_name, args, params, e)
                raise
        prim.bind = bind
        undo.append((prim, original))

    def restore():
        for prim, original in undo:
            if original is None:
                del prim.bind
            else:
                prim.bind = original
    return restore


def plain(v, depth=0):
    """A primitive parameter as JSON: ints, strings, nested tuples (dimension numbers, padding)."""
    if depth > 4:
        return None
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, str):
        return v
    if isinstance(v, (tuple, list)):
        return [plain(x, depth + 1) for x in v]
    return str(v)


def jax_failure_record(op, args, params, exc):
    names = ("lhs", "rhs")
    operands = []
    for i, a in enumerate(args[:2]):
        aval = getattr(a, "aval", a)
        operands.append({"name": names[i], "shape": [int(d) for d in getattr(aval, "shape", ())],
                         "dtype": str(getattr(aval, "dtype", type(a).__name__))})
    options = {}
    if op == "dot_general":
        (lc, rc), (lb, rb) = params.get("dimension_numbers", (((), ()), ((), ())))
        options = {"lhs_contracting": plain(lc), "rhs_contracting": plain(rc), "lhs_batch": plain(lb), "rhs_batch": plain(rb)}
    else:
        dn = params.get("dimension_numbers")
        options = {"window_strides": plain(params.get("window_strides")), "padding": plain(params.get("padding")),
                   "lhs_dilation": plain(params.get("lhs_dilation")), "rhs_dilation": plain(params.get("rhs_dilation")),
                   "feature_group_count": plain(params.get("feature_group_count", 1)),
                   "batch_group_count": plain(params.get("batch_group_count", 1))}
        if dn is not None and hasattr(dn, "lhs_spec"):
            options.update(lhs_spec=plain(dn.lhs_spec), rhs_spec=plain(dn.rhs_spec), out_spec=plain(dn.out_spec))
    from jax._src import source_info_util
    module = str(source_info_util.current_name_stack())
    return {"op": op, "operands": operands, "options": options, "module": module, "exception": exc}


class JaxGraph(object):
    """Graph nodes from a traced jaxpr, emitted within max_capture_bytes (then `truncated`)."""

    def __init__(self, budget):
        self.budget, self.bytes, self.truncated, self.next = budget, 0, False, 1
        self.producer = {}   # id(jaxpr variable) -> node id

    def new_id(self):
        i = self.next
        self.next += 1
        return i

    def emit_node(self, node):
        if self.truncated:
            return
        line = json.dumps(dict(node, t="node"), separators=(",", ":"), default=str)
        if self.bytes + len(line) + 1 > self.budget:
            self.truncated = True
            emit({"t": "truncated", "bytes": self.bytes})
            return
        self.bytes += emit(dict(node, t="node"))

    def edges(self, variables, label):
        out = []
        for i, v in enumerate(variables):
            aval = getattr(v, "aval", None)
            if aval is None or not hasattr(aval, "shape"):
                continue
            out.append({"from": self.producer.get(id(v), 0), "name": "%s[%d]" % (label, i),
                        "shape": [int(d) for d in aval.shape], "dtype": str(aval.dtype)})
        return out


def equation_op(eqn):
    name = eqn.primitive.name
    inner = eqn.params.get("name") if isinstance(eqn.params.get("name"), str) else None
    return "%s:%s" % (name, inner) if inner else name


def jax_trace(jax, job, model, args, kwargs):
    graph = JaxGraph(int(job.get("max_capture_bytes", 4 << 20)))
    state = {"failure": None}
    flat_inputs = jax_leaves(jax, {"args": list(args), "kwargs": kwargs}, "input")
    input_nodes = {}
    for name, a in flat_inputs:
        if id(a) in input_nodes:
            continue
        nid = graph.new_id()
        input_nodes[id(a)] = nid
        label = input_label(name)
        graph.emit_node({"id": nid, "op": "input", "module": label, "inputs": [], "outputs": [jax_describe(a, label)]})
    emit({"t": "stage", "stage": "forward"})
    # Arrays are traced; every other leaf (a bool flag, a string, a size) stays a Python value.
    leaves, treedef = jax.tree_util.tree_flatten((tuple(args), kwargs), is_leaf=lambda v: v is None)
    dynamic = [i for i, leaf in enumerate(leaves) if is_array(leaf)]
    arrays = [leaves[i] for i in dynamic]

    def rebuilt(traced_arrays):
        filled = list(leaves)
        for i, a in zip(dynamic, traced_arrays):
            filled[i] = a
        return jax.tree_util.tree_unflatten(treedef, filled)

    restore = watch_primitives(state)
    try:
        fn, prefix = model.trace_fn(lambda f: jax.eval_shape(lambda *t: f(*rebuilt(t)), *arrays))

        def traced(prefix_value, *traced_arrays):
            a, k = rebuilt(traced_arrays)
            return fn(prefix_value, *a, **k)

        closed, out_shape = jax.make_jaxpr(traced, return_shape=True)(prefix, *arrays)
    except Exception as e:
        log_exception("forward")
        return jax_failure_result(jax, graph, state, e)
    finally:
        restore()
    jaxpr = closed.jaxpr
    # The jaxpr's invars: the prefix's leaves (variables), then the arrays of args and kwargs in order.
    skip = len(jax.tree_util.tree_leaves(prefix))
    for var, i in zip(jaxpr.invars[skip:], dynamic):
        if id(leaves[i]) in input_nodes:
            graph.producer[id(var)] = input_nodes[id(leaves[i])]
    for eqn in jaxpr.eqns:
        nid = graph.new_id()
        graph.emit_node({"id": nid, "op": equation_op(eqn), "module": str(eqn.source_info.name_stack),
                         "inputs": graph.edges(eqn.invars, "input"),
                         "outputs": [jax_describe(v.aval, "output[%d]" % i) for i, v in enumerate(eqn.outvars)]})
        for v in eqn.outvars:
            graph.producer[id(v)] = nid
    outs = jax_leaves(jax, out_shape, "output")
    nid = graph.new_id()
    graph.emit_node({"id": nid, "op": "output", "module": "output", "inputs": graph.edges(jaxpr.outvars, "output"),
                     "outputs": [jax_describe(a, n) for n, a in outs]})
    return {"ok": True, "stage": "", "outputs": [jax_describe(a, n) for n, a in outs], "truncated": graph.truncated}


def jax_failure_result(jax, graph, state, e):
    f = state["failure"]
    result = {"ok": False, "stage": "forward", "exception_type": type(e).__name__, "truncated": graph.truncated}
    if f is not None and caused_by(e, f["exception"]):
        nid = graph.new_id()
        graph.emit_node({"id": nid, "op": f["op"], "module": f["module"], "outputs": [], "failed": True,
                         "inputs": [dict(o, **{"from": 0}) for o in f["operands"]]})
        result.update(kind="operator", failure={"op": f["op"], "operands": f["operands"], "options": f["options"],
                                                "module": f["module"], "node": nid})
    else:
        from jax._src import source_info_util
        result.update(kind="assertion" if isinstance(e, AssertionError) else "forward",
                      module=str(source_info_util.current_name_stack()))
    return result
