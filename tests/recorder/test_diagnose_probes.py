"""The recorder's probes for `tvis diagnose` (recorder/python/tvis/session:
modes.py, dead_units.py), called directly: which modules carry a mode, and
the dead-unit reduction on a known output. Neither changes its input."""
import pytest
import torch

from tvis.session.dead_units import DeadUnitProbe
from tvis.session.modes import mode_detail, mode_sensitive


class _Details:
    """The native Recorder's dead-unit reduction (a real Recorder writing
    into `folder`), keeping the details it was given."""

    def __init__(self, folder):
        from conftest import NATIVE_PY  # noqa: F401 (the build's module is loaded)
        import tvis.native
        self._rec = tvis.native.load().Recorder(str(folder / "run.tvis"), {"max_elems": 1000, "samples": 1, "project_dir": str(folder)})
        self.details = {}

    def dead_units(self, output, unit_dim):
        return self._rec.dead_units(output, unit_dim)

    def add_detail(self, eid, detail):
        self._rec.add_detail(eid, detail)  # the native check: EventDetail fields of their types
        self.details.setdefault(eid, {}).update(detail)


def test_mode_sensitive_modules():
    assert mode_sensitive(torch.nn.Dropout(0.1)) and mode_sensitive(torch.nn.Dropout2d(0.5))
    assert mode_sensitive(torch.nn.BatchNorm1d(4)) and mode_sensitive(torch.nn.BatchNorm2d(4))
    assert not mode_sensitive(torch.nn.Dropout(0.0))  # the same in both modes
    assert not mode_sensitive(torch.nn.BatchNorm1d(4, track_running_stats=False))  # always the batch's statistics
    assert not mode_sensitive(torch.nn.Linear(2, 2))


def test_mode_detail():
    drop = torch.nn.Dropout(0.1).eval()
    assert mode_detail(drop, top=False) == {"training": False}
    assert mode_detail(drop, top=True) == {"model_training": False, "training": False}
    assert mode_detail(torch.nn.Linear(2, 2), top=False) is None
    net = torch.nn.Sequential(torch.nn.Linear(2, 2))
    assert mode_detail(net, top=True) == {"model_training": True}
    assert mode_detail(net, top=True) is mode_detail(net, top=True)  # built once, not per call


def _events_detail(native, path):
    """{event id: {key: text}} of a finished run file's events."""
    from tvis._read import _json
    f = native.RunFile(path)
    events = {}
    for ordinal, kind, *_ in f.chunks():
        if kind == "events":
            for e in _json(f.chunk_json(ordinal))["body"]["events"]:
                events[e.get("id", 0)] = {kv["key"]: kv.get("value", "") for kv in e.get("detail", [])}
    return events


def test_dead_units_of_a_known_output(native, tmp_path):
    """The probe hands a training forward's ReLU outputs to the native
    recorder, which writes each call's counts into its event at the step's
    end: a known output's count, nothing for other modules, other phases or
    outputs without values, and the output unchanged."""
    from tvis.schema import EVALUATION, FORWARD, MODULE_CALL
    path = str(tmp_path / "run.tvis")
    rec = native.Recorder(path, {"project_dir": str(tmp_path)})
    probe = DeadUnitProbe(rec)
    x = torch.relu(torch.randn(8, 6, 3, 3))
    x[:, 2] = 0  # channel 2 off for every sample and position
    x[:, 4] = 0
    x[0, 4, 1, 1] = 0.5  # channel 4 alive in one position of one sample
    before = x.clone()
    tokens = torch.relu(torch.randn(2, 5, 7))
    tokens[..., 3] = 0  # [B, T, F]: the last dim's feature 3 is off
    rec.set_phase(FORWARD)
    ids = [rec.begin(MODULE_CALL, "m%d" % i, "M", 0, 0, 0, 0) for i in range(6)]
    probe.on_module_post(torch.nn.ReLU(), ids[0], (), x)
    probe.on_module_post(torch.nn.GELU(), ids[1], (), x)  # not a ReLU: nothing
    probe.on_module_post(torch.nn.ReLU6(), ids[2], (), tokens)
    probe.on_module_post(torch.nn.ReLU(), ids[3], (), torch.zeros(0, 4))  # no values: nothing
    probe.on_module_post(torch.nn.ReLU(), ids[4], (), (x,))  # not a tensor: nothing
    rec.set_phase(EVALUATION)
    probe.on_module_post(torch.nn.ReLU(), ids[5], (), x)  # not a training forward: nothing
    probe.on_step_end(0)
    for eid in ids:
        rec.end(eid)
    rec.finalize({})
    details = _events_detail(native, path)
    assert details[ids[0]] == {"dead_units": "1", "units": "6", "unit_samples": "72"}
    assert details[ids[2]] == {"dead_units": "1", "units": "7", "unit_samples": "10"}
    assert all(details[i] == {} for i in (ids[1], ids[3], ids[4], ids[5]))
    assert torch.equal(x, before)


def test_dead_units_equal_torchs_reduction(tmp_path):
    """The reduction equals amax over every dimension but the unit's, == 0,
    summed, on both of its paths (a loop for small float32 CPU outputs, torch's
    operators for the rest): NaN peaks are not dead, -0.0 and all-zero units
    are, negative and infinite values count as values."""
    rec = _Details(tmp_path)
    torch.manual_seed(0)
    cases = 0
    for shape, d in [((4, 8), 1), ((2, 5, 7), 2), ((3, 6, 4, 4), 1), ((1, 3), 1), ((8, 16, 600), 2),
                     ((70, 1000), 1), ((2, 3, 70, 70), 1)]:  # the last two past the loop's 65,536 values
        for variant in range(6):
            x = torch.relu(torch.randn(shape))
            x[:, 0] = 0
            if variant == 1:
                x.view(-1)[::3] = float("nan")
            elif variant == 2:
                x = -x  # -0.0 peaks: dead
            elif variant == 3:
                x.view(-1)[::5] = float("inf")
            elif variant == 4:
                x = torch.zeros(shape)
            elif variant == 5:
                x = x.double()  # not float32: torch's operators
            dims = [i for i in range(x.dim()) if i != d]
            want = int(x.amax(dims).eq(0).sum())
            assert int(rec.dead_units(x, d)) == want, (shape, variant)
            cases += 1
    assert cases == 42
    t = torch.relu(torch.randn(6, 4)).t()  # not contiguous: torch's operators
    assert int(rec.dead_units(t, 1)) == int(t.amax(0).eq(0).sum())


def test_dtensors_possible_needs_a_process_group(tmp_path):
    """The module hooks skip local_values while no DTensor can exist: torch's
    DTensor class is not imported, or no default process group is up."""
    import torch.distributed as dist
    from tvis.session.shards import dtensor_class, dtensors_possible
    if not dist.is_available():
        assert not dtensors_possible()
        return
    assert not dist.is_initialized()
    assert not dtensors_possible()
    for name in ("torch.distributed.tensor", "torch.distributed._tensor"):
        try:
            __import__(name)  # as torch.optim does on torch 2.x (through torch._dynamo)
            break
        except ImportError:
            pass
    if dtensor_class() is None:
        return  # this torch has no DTensor: never possible
    dist.init_process_group("gloo", init_method="file://%s" % (tmp_path / "store"), rank=0, world_size=1)
    try:
        assert dtensors_possible()
    finally:
        dist.destroy_process_group()
    assert not dtensors_possible()


def _python_graph_leaves(loss):
    """The walk session/hand_written_steps.py did in Python before the native one: the reference."""
    leaves, seen, todo, alive = [], set(), [loss.grad_fn], []
    while todo:
        fn = todo.pop()
        if fn is None or id(fn) in seen:
            continue
        alive.append(fn)
        seen.add(id(fn))
        var = getattr(fn, "variable", None)
        if var is not None:
            leaves.append(var)
        todo.extend(f for f, _ in fn.next_functions)
    return leaves


def test_graph_leaves_walk_the_graph_as_python_did():
    """PyRecorder.graph_leaves (carried_grads.py, backward_calls.py) gives
    the Python walk's leaves, the same objects in the same order: a ResNet's
    graph (shared BatchNorm nodes, residual joins), a parameter used twice, a
    leaf outside any module, a frozen layer, a loss with no graph."""
    import torchvision
    from conftest import NATIVE_PY  # noqa: F401 (the build's module is loaded)
    import tvis.native
    graph_leaves = tvis.native.load().Recorder.graph_leaves
    torch.manual_seed(0)
    net = torchvision.models.resnet18(num_classes=3)
    net.layer2.requires_grad_(False)
    scale = torch.ones(3, requires_grad=True)  # a leaf of the script's own
    shared = torch.nn.Linear(3, 3)
    out = shared(shared(net(torch.randn(2, 3, 32, 32)))) * scale
    cases = [out.sum(), torch.nn.functional.cross_entropy(out, torch.tensor([0, 2])), scale * 2,
             torch.ones(2, requires_grad=True), torch.zeros(3)]
    for loss in cases:
        want, got = _python_graph_leaves(loss), graph_leaves(loss)
        assert [id(t) for t in got] == [id(t) for t in want], loss
    params = {id(p) for p in list(net.parameters()) + list(shared.parameters())}
    got = graph_leaves(cases[0])
    assert len(got) == len({id(t) for t in got})  # each once, `shared` used twice
    assert id(scale) in {id(t) for t in got}
    assert not {id(p) for p in net.layer2.parameters()} & {id(t) for t in got}
    assert {id(t) for t in got} - {id(scale)} <= params


def test_carried_gradient_norms_on_both_paths(native, tmp_path):
    """The carried-gradients probe's norms: small float32 host gradients
    summed by the recorder in double, the rest (large, float64, sparse) by
    torch's vector norm; every parameter with a .grad once, in order, None
    grads skipped, NaN and Inf kept."""
    from tvis.session.carried_grads import _grad_norms
    rec = native.Recorder(str(tmp_path / "run.tvis"), {"project_dir": str(tmp_path)})
    torch.manual_seed(0)
    grads = [torch.randn(8, 8), None, torch.randn(300, 300), torch.randn(5).double(), torch.zeros(7),
             torch.tensor([1.0, float("nan")]), torch.tensor([float("inf"), 2.0]), torch.randn(3, 4).t(),
             torch.sparse_coo_tensor([[0, 2]], [3.0, 4.0], (5,))]
    params = []
    for g in grads:
        p = torch.nn.Parameter(torch.zeros(g.shape if g is not None else (1,), dtype=g.dtype if g is not None else
                                           torch.float32))
        p.grad = g
        params.append(p)
    got = _grad_norms(rec, params)
    assert [id(t) for t, _ in got] == [id(p) for p in params if p.grad is not None]
    quick = rec.small_l2_norms([p.grad for p in params if p.grad is not None])
    assert [q is not None for q in quick] == [True, False, False, True, True, True, False, False]
    for (t, n), p in zip(got, [p for p in params if p.grad is not None]):
        g = p.grad.coalesce().values() if p.grad.is_sparse else p.grad
        want = float(torch.linalg.vector_norm(g.double()))
        if want != want:
            assert n != n
        else:
            assert n == pytest.approx(want, rel=1e-6, abs=0), p.grad.shape
    rec.finalize({})
