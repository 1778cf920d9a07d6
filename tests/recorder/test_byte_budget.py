"""--max-run-bytes: the run stays within its byte budget, training is
unchanged, and what was reduced says so (statistics, a thumbnail, the
followed samples' rows) in the tensor records and a notice."""
import os

from conftest import SCRIPTS, inspect_json, load_run, record_matching_plain, run_tvis, run_file_of


def test_a_small_budget_bounds_the_run_and_keeps_what_pages_need(tvis, tmp_path):
    limit = 30 << 20
    p = run_tvis(tvis, SCRIPTS / "resnet18.py", "--steps", 5, steps=3, out=tmp_path / "runs",
                 opts=["--max-run-bytes", "30M"])
    assert p.returncode == 0, p.stderr
    path = run_file_of(p.stdout)
    assert os.path.getsize(path) <= limit
    notices = inspect_json(tvis, path)["notices"]
    assert any("--max-run-bytes %d" % limit in n for n in notices), notices
    run = load_run(path)
    reduced = [t for t in run.tensors.values() if t.get("thumbnail")]
    assert reduced, "no tensor was reduced"
    for t in reduced:
        rows, cols = t["thumbnail_shape"]
        assert len(t["thumbnail"]) == rows * cols and rows <= 32 and cols <= 32
        assert t["kept"] in ("None", "LeadingRows")
    # every tensor keeps its statistics; losses and the followed samples are all there
    assert all(t.get("stats", {}).get("count", 0) > 0 for t in run.tensors.values() if t["shape"])
    assert len(run.losses) == 3 and all(len(b["samples"]) == 4 for b in run.samples)
    assert all(run.values(s["input"]) is not None for b in run.samples for s in b["samples"])


def test_the_default_budget_changes_nothing_for_a_small_run(tvis, tmp_path):
    path, _, _ = record_matching_plain(tvis, SCRIPTS / "cnn_dropout.py", 3, tmp_path / "runs")
    run = load_run(path)
    assert not [t for t in run.tensors.values() if t.get("thumbnail")]
