"""Tensor capture through the native recorder: exact statistics (NaN/Inf
counted and excluded), histogram, dtypes, budget (leading rows, followed
samples), dedup of unchanged tensors, and values read back bit for bit."""
import math

import pytest
import torch

import _tvis_native
from conftest import load_run

INPUT, OUTPUT, WEIGHT = 0, 1, 4


def _record(tmp_path, tensors, max_elems=None, samples=None, batch_rows=-1, role=WEIGHT):
    config = {"project_dir": str(tmp_path)}  # max_elems, samples: the schema's defaults unless given
    config.update({k: v for k, v in (("max_elems", max_elems), ("samples", samples)) if v is not None})
    rec = _tvis_native.Recorder(str(tmp_path / "run.tvis"), config)
    rec.set_batch_rows(batch_rows)
    ids = [rec.tensor(t, role, -1, "t%d" % i) for i, t in enumerate(tensors)]
    rec.finalize({"script": "x.py"})
    return ids, load_run(tmp_path / "run.tvis")


def _expect_stats(t):
    x = t.detach().double().reshape(-1)
    fin = x[torch.isfinite(x)]
    return {"count": x.numel(), "finite_count": fin.numel(), "nan_count": int(torch.isnan(x).sum()),
            "min": fin.min().item(), "max": fin.max().item(), "mean": fin.mean().item(),
            "std": fin.std(unbiased=False).item(), "mean_abs": fin.abs().mean().item(), "l2": fin.norm().item()}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64])
def test_stats_and_values(tmp_path, dtype):
    torch.manual_seed(1)
    t = (torch.randn(300, 40) * 3 + 1).to(dtype)
    ids, run = _record(tmp_path, [t, t.t()])
    for tid, src in zip(ids, [t, t.t()]):
        rec = run.tensors[tid]
        st, exp = rec["stats"], _expect_stats(src)
        assert st["count"] == exp["count"] and st.get("finite_count", 0) == exp["finite_count"]
        for k in ("min", "max", "mean", "std", "mean_abs", "l2"):
            assert math.isclose(st.get(k, 0.0), exp[k], rel_tol=1e-9, abs_tol=1e-9), k
        assert sum(st["histogram"]) == exp["finite_count"] and len(st["histogram"]) == 64
        assert rec["kept"] == "Full" and torch.equal(run.values(tid), src.contiguous())


def test_nan_inf_are_counted_not_summed(tmp_path):
    t = torch.arange(10, dtype=torch.float32)
    t[2], t[5], t[7] = float("nan"), float("inf"), -float("inf")
    ids, run = _record(tmp_path, [t])
    st = run.tensors[ids[0]]["stats"]
    assert st["nan_count"] == 1 and st["inf_count"] == 2 and st["finite_count"] == 7
    assert st.get("min", 0.0) == 0.0 and st["max"] == 9.0 and math.isclose(st["mean"], (45 - 2 - 5 - 7) / 7)
    assert sum(st["histogram"]) == 7
    assert torch.equal(torch.isnan(run.values(ids[0])), torch.isnan(t))


def test_large_tensor_parallel_stats_match(tmp_path):
    torch.manual_seed(2)
    t = torch.randn(1 << 21)  # takes the multi-threaded path when torch has >1 thread
    ids, run = _record(tmp_path, [t])
    st, exp = run.tensors[ids[0]]["stats"], _expect_stats(t)
    for k in ("min", "max", "mean", "std", "l2"):
        assert math.isclose(st[k], exp[k], rel_tol=1e-9, abs_tol=1e-12), k
    assert sum(st["histogram"]) == t.numel()


def test_budget_keeps_leading_rows_and_followed_samples(tmp_path):
    t = torch.randn(10, 1000)
    ids, run = _record(tmp_path, [t, torch.randn(8, 1000)], max_elems=2500, samples=4, batch_rows=8)
    a, b = run.tensors[ids[0]], run.tensors[ids[1]]
    assert a["kept"] == "LeadingRows" and a["kept_rows"] == 2 and torch.equal(run.values(ids[0]), t[:2])
    assert b["kept"] == "LeadingRows" and b["kept_rows"] == 4  # the 4 followed samples of the batch
    assert a["stats"]["count"] == 10000  # statistics stay exact over the whole tensor


def test_unchanged_outputs_are_recorded_once(tmp_path):
    rec = _tvis_native.Recorder(str(tmp_path / "run.tvis"), {"project_dir": str(tmp_path)})
    t = torch.randn(5, 5)
    orig = t.clone()
    a = rec.tensor(t, OUTPUT, -1)
    b = rec.tensor(t, INPUT, -1)
    t.add_(1)  # an in-place change makes it a new tensor value
    c = rec.tensor(t, INPUT, -1)
    rec.finalize({})
    assert a == b and c != a
    run = load_run(tmp_path / "run.tvis")
    assert torch.equal(run.values(c), t) and torch.equal(run.values(a), orig)


def test_empty_and_scalar(tmp_path):
    ids, run = _record(tmp_path, [torch.zeros(0, 3), torch.tensor(2.5)])
    assert run.tensors[ids[0]]["stats"].get("count", 0) == 0 and run.tensors[ids[0]]["shape"] == [0, 3]
    assert run.values(ids[1]).item() == 2.5


def test_values_exact_in_every_chunk_layout(tmp_path):
    """Float32 values go to chunks by kind (run_builder.h): mostly zeros
    unshuffled (weights excepted: they keep a buffer of their own),
    gradients/updates and weights/activations byte-shuffled at their own zstd
    levels; all read back bit for bit, NaN/Inf/-0 included. Each role's values
    differ (scaled), so none points at another's stored copy."""
    torch.manual_seed(3)
    dense = torch.randn(64, 50)
    sparse = torch.zeros(64, 50)
    sparse[::3, ::7] = torch.randn(22, 8)
    odd = torch.tensor([float("nan"), float("inf"), -0.0, 0.0, 1e-45, -3.5] * 7)
    rec = _tvis_native.Recorder(str(tmp_path / "run.tvis"), {"project_dir": str(tmp_path)})
    GRAD, UPDATE, GRAD_OUTPUT = 5, 6, 2
    roles = (WEIGHT, GRAD, UPDATE, OUTPUT, GRAD_OUTPUT)
    cases = [(t * (k + 1), role) for t in (dense, sparse, odd) for k, role in enumerate(roles)]
    ids = [rec.tensor(t, role, -1, "t%d" % i) for i, (t, role) in enumerate(cases)]
    rec.finalize({"script": "x.py"})
    run = load_run(tmp_path / "run.tvis")
    for tid, (t, role) in zip(ids, cases):
        got = run.values(tid)
        assert got.dtype == t.dtype and got.shape == t.shape
        assert torch.equal(got.view(torch.int32), t.view(torch.int32)), (tid, role)
    filters = {c[6] for c in run.chunks if c[1] == "tensor_data"}
    assert filters == {0, 4}, "mostly-zero values unshuffled, the others in 4-byte planes: %s" % filters
    filter_of = {c[0]: c[6] for c in run.chunks if c[1] == "tensor_data"}
    sparse_weight, sparse_grad = ids[len(roles)], ids[len(roles) + 1]
    assert filter_of[run.tensors[sparse_weight]["data_chunk"]] == 4, "a mostly-zero weight left the weights buffer"
    assert filter_of[run.tensors[sparse_grad]["data_chunk"]] == 0
