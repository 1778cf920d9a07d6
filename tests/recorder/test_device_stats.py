"""The device statistics path (recorder/src/device_stats.h) on a machine
without a GPU: TVIS_DEVICE_STATS_ON_CPU=1 (a developer knob) sends CPU
tensors through it. It must read the device at most twice per step however
many tensors a step captures (RunMeta.step_device_reads, `tvis inspect`'s
`device_reads`), give the statistics of the exact CPU path within the bound
device_stats.h documents, and never change training."""
import math
import os
import subprocess

import torch

from conftest import PYTHON, SCRIPTS, inspect_json, load_run, record_matching_plain, step_lines

FORCE = "TVIS_DEVICE_STATS_ON_CPU"
BOUND = 6.2e-5  # device_stats.h: sums' error relative to sum |x| (float32 inputs)

# Records the same tensors with a bare Recorder: every dtype the device path
# converts, NaN/Inf, constant, empty, huge and tiny magnitudes, non-contiguous,
# more elements than one summation block.
RECORD = r"""
import sys, torch
sys.path.insert(0, sys.argv[2])
import _tvis_native
torch.manual_seed(3)
big = torch.randn(5000, 13) * 7 + 2
edge = torch.arange(12, dtype=torch.float32); edge[2] = float("nan"); edge[5] = float("inf"); edge[7] = -float("inf")
ts = [big, big.t(), big.double(), big.half(), big.bfloat16(), (big * 10).long(), big > 0, edge,
      torch.full((300,), 2.5), torch.empty(0), torch.full((4,), float("nan")), torch.randn(4000) * 3e37,
      torch.randn(3000) * 1e-30, torch.randn(64, 50) + 1000.0, torch.zeros(100, 3)]
rec = _tvis_native.Recorder(sys.argv[1], {"project_dir": "."})
ids = [rec.tensor(t, 4, -1, "t%d" % i) for i, t in enumerate(ts)]
print(ids)
rec.finalize({"script": "x.py"})
"""


def _record(tmp_path, name, forced, native_dir, script=RECORD):
    out = tmp_path / (name + ".tvis")
    env = {k: v for k, v in os.environ.items() if k != FORCE}
    if forced:
        env[FORCE] = "1"
    p = subprocess.run([PYTHON, "-c", script, str(out), native_dir], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return load_run(out)


def assert_within_bound(exact, dev, what):
    """`dev`'s statistics equal `exact`'s within device_stats.h's bound."""
    for k in ("count", "finite_count", "nan_count", "inf_count", "min", "max"):
        assert dev.get(k, 0) == exact.get(k, 0), (what, k, exact, dev)
    if not exact.get("finite_count"):
        assert not dev.get("histogram"), (what, dev)
        return
    n = exact["finite_count"]
    sum_abs = exact.get("mean_abs", 0.0) * n
    assert abs(dev.get("mean", 0.0) - exact.get("mean", 0.0)) * n <= BOUND * sum_abs + 1e-300, (what, "mean")
    assert math.isclose(dev.get("mean_abs", 0.0), exact.get("mean_abs", 0.0), rel_tol=BOUND), (what, "mean_abs")
    assert math.isclose(dev.get("l2", 0.0), exact.get("l2", 0.0), rel_tol=BOUND), (what, "l2")
    # value_stats' std (E[x^2] - mean^2) is itself inexact when |mean| >> std
    spread = exact.get("std", 0.0)
    slack = (BOUND * exact.get("mean_abs", 0.0)) + 1e-7 * abs(exact.get("mean", 0.0))
    assert abs(dev.get("std", 0.0) - spread) <= BOUND * spread + slack, (what, "std", exact, dev)
    h0, h1 = exact["histogram"], dev["histogram"]
    assert len(h1) == 64 and sum(h1) == sum(h0) == n, (what, "histogram")
    # a value within 1.2e-5 of a bin width from an edge may change bins
    moved = sum(abs(a - b) for a, b in zip(h0, h1)) // 2
    assert moved <= 2 + n * 1e-4, (what, "histogram", h0, h1)


def test_device_path_matches_the_cpu_path(tmp_path):
    import conftest
    native_dir = str(conftest.NATIVE_PY)
    exact = _record(tmp_path, "exact", False, native_dir)
    dev = _record(tmp_path, "device", True, native_dir)
    assert (exact.meta or {}).get("step_device_reads") in (None, [0])  # the CPU path never reads a device
    # 15 tensors, one read: at finalize, for all of them
    assert dev.meta["step_device_reads"] == [1]
    assert len(exact.tensors) == len(dev.tensors) == 15
    for i in range(15):
        assert_within_bound(exact.tensors[i]["stats"], dev.tensors[i]["stats"], "tensor %d" % i)
        assert exact.tensors[i]["dtype"] == dev.tensors[i]["dtype"]
    # float64 and integer tensors are reduced in float64: the histogram is the CPU path's
    for i in (2, 5):
        assert exact.tensors[i]["stats"]["histogram"] == dev.tensors[i]["stats"]["histogram"]
    # values kept are the tensor's own bytes either way
    for i in (0, 1, 3, 7):
        assert dev.values(i).view(torch.uint8).numpy().tobytes() == \
            exact.values(i).view(torch.uint8).numpy().tobytes()


def test_forced_device_path_reads_at_most_twice_a_step(tvis, tmp_path, monkeypatch):
    """A training run under `tvis run` on the forced device path: the same
    losses as the plain run bit for bit, at most two reads per step (however
    many tensors a step captured), and statistics within the bound of the
    exact path's run."""
    script = SCRIPTS / "lm_adamw.py"
    monkeypatch.delenv(FORCE, raising=False)
    exact_path, _, plain = record_matching_plain(tvis, script, 3, tmp_path / "exact")
    monkeypatch.setenv(FORCE, "1")
    forced_path, forced_out, _ = record_matching_plain(tvis, script, 3, tmp_path / "forced")
    assert step_lines(forced_out) == step_lines(plain)
    j_exact, j_dev = inspect_json(tvis, exact_path), inspect_json(tvis, forced_path)
    # per step begun: the 3 recorded and the one `tvis run` stopped as it began
    assert j_exact["device_reads"] == [0, 0, 0, 0]
    per_step = len(load_run(forced_path).tensors) / 3
    assert per_step > 50, per_step
    reads = j_dev["device_reads"]
    assert len(reads) == 4 and all(1 <= r <= 2 for r in reads[:3]) and reads[3] <= 2, reads
    exact, dev = load_run(exact_path), load_run(forced_path)
    assert len(exact.tensors) == len(dev.tensors)
    for tid in range(len(exact.tensors)):
        a, b = exact.tensors[tid], dev.tensors[tid]
        assert (a.get("name"), a.get("role"), a.get("shape")) == (b.get("name"), b.get("role"), b.get("shape"))
        assert_within_bound(a["stats"], b["stats"], "%s %s" % (a.get("role"), a.get("name", "")))
    # the grad norms of module calls come from the same statistics, after the step's read
    assert sorted(exact.events) == sorted(dev.events)
    norms = [(exact.events[i].get("grad_norm", -1), dev.events[i].get("grad_norm", -1)) for i in sorted(exact.events)]
    assert any(a > 0 for a, _ in norms)
    for a, b in norms:
        assert (a < 0) == (b < 0) and math.isclose(a, b, rel_tol=BOUND, abs_tol=1e-30), (a, b)


FILL = r"""
import sys, torch
sys.path.insert(0, sys.argv[2])
import _tvis_native
rec = _tvis_native.Recorder(sys.argv[1], {"project_dir": "."})
for i in range(15000):  # 73 values each: the batch fills (2^20 values) once
    rec.tensor(torch.full((3,), float(i)), 4, -1, "t")
rec.finalize({"script": "x.py"})
"""


def test_a_full_batch_is_read_before_it_grows(tmp_path):
    """The step's buffer holds at most 2^20 values (device_batch.h): past
    that it is read early, and every record still gets its own numbers."""
    import conftest
    out = tmp_path / "fill.tvis"
    p = subprocess.run([PYTHON, "-c", FILL, str(out), str(conftest.NATIVE_PY)], capture_output=True, text=True,
                       env=dict(os.environ, **{FORCE: "1"}), timeout=600)
    assert p.returncode == 0, p.stderr
    run = load_run(out)
    assert run.meta["step_device_reads"] == [2]
    assert len(run.tensors) == 15000
    for i in (0, 14363, 14364, 14999):
        st = run.tensors[i]["stats"]
        assert st.get("min", 0.0) == st.get("max", 0.0) == float(i) and st["histogram"][0] == 3, (i, st)


def test_thumbnails_match_between_the_paths(tmp_path):
    """Past the byte budget a tensor keeps a block-mean thumbnail: the host
    path's own pass (adaptive_block_means.h) and the device path's adaptive_avg_pool2d
    give the same means within float rounding, on sizes whose windows overlap
    (100 x 77, 1000 x 3) and do not (64 x 128), and on a vector."""
    import conftest
    import numpy as np
    script = r"""
import sys, torch
sys.path.insert(0, sys.argv[2])
import _tvis_native
torch.manual_seed(5)
ts = [torch.randn(100, 77) + 0.5, torch.randn(64, 128), torch.randn(1000, 3) * 1e3, torch.randn(5000),
      torch.randn(6, 5, 4, 3)]
rec = _tvis_native.Recorder(sys.argv[1], {"project_dir": ".", "max_run_bytes": 1, "steps": 1})
ids = [rec.tensor(t, 4, -1, "t%d" % i) for i, t in enumerate(ts)]
rec.finalize({"script": "x.py"})
"""
    runs = {name: _record(tmp_path, name, forced, str(conftest.NATIVE_PY), script)
            for name, forced in (("host", False), ("device", True))}
    shapes = [(32, 32), (32, 32), (32, 3), (1, 32), (6, 32)]
    for i, shape in enumerate(shapes):
        host, dev = runs["host"].tensors[i], runs["device"].tensors[i]
        assert host["kept"] == dev["kept"] == "None", (i, host["kept"], dev["kept"])
        assert tuple(host["thumbnail_shape"]) == tuple(dev["thumbnail_shape"]) == shape, i
        # torch's pooling sums in float32: its error is relative to the block's |x|, not to its mean
        np.testing.assert_allclose(host["thumbnail"], dev["thumbnail"], rtol=1e-5,
                                   atol=1e-5 * host["stats"]["mean_abs"], err_msg=str(i))
