"""--max-run-bytes: the run stays within its byte budget, training is
unchanged, and what was reduced says so (statistics, a thumbnail, the
followed samples' rows) in the tensor records and a notice."""
import json
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


def _adaptive_block_means(a, rows_out, cols_out):
    """adaptive average pooling of a 2-D array, computed here in float64:
    block i spans [floor(i*n/k), ceil((i+1)*n/k))."""
    import numpy as np
    R, C = a.shape
    out = np.empty((rows_out, cols_out))
    for i in range(rows_out):
        r0, r1 = (i * R) // rows_out, -(-((i + 1) * R) // rows_out)
        for j in range(cols_out):
            c0, c1 = (j * C) // cols_out, -(-((j + 1) * C) // cols_out)
            out[i, j] = a[r0:r1, c0:c1].astype(np.float64).mean()
    return out


def test_refused_activations_keep_thumbnails_and_the_viewer_shows_them(tvis, build, tmp_path, monkeypatch):
    """Under a 16 MB budget (8 MB a step), the activations of features.0
    (conv) and features.1 (its ReLU), 16.8 MB each, keep only the followed
    samples' 4 rows (4.2 MB each, recorder.h): features.0's fit and equal the
    script's own copy of the conv's output; features.1's do not fit beside
    them, so it keeps statistics and a thumbnail equal to the block means of
    the whole batch's ReLU output; the head's output keeps the followed
    rows too and every parameter stays whole; tvis-view's layer panel on features.1 shows its thumbnail and
    says that the budget refused the values."""
    import numpy as np
    import subprocess
    import torch
    monkeypatch.setenv("TVIS_TEST_SAVE_DIR", str(tmp_path))
    p = run_tvis(tvis, SCRIPTS / "budget_wide_conv.py", "--steps", 3, steps=2, out=tmp_path / "runs",
                 opts=["--max-run-bytes", "16M"])
    assert p.returncode == 0, p.stderr
    path = run_file_of(p.stdout)
    run = load_run(path)

    def output_of(module):
        call = next(e for e in run.module_events() if e["name"] == module and e["step"] == 0 and e["phase"] == "Forward")
        return run.tensors[call["outputs"][0]]

    conv = torch.load(tmp_path / "features0_step0.pt").numpy()
    first = output_of("features.0")
    assert first["kept"] == "LeadingRows" and first["kept_rows"] == 4 and not first.get("thumbnail"), first["kept"]
    np.testing.assert_array_equal(run.values(first["id"]).numpy(), conv[:4])
    recorded = {}
    for module, values in (("features.1", np.maximum(conv, 0)),):
        rec = output_of(module)
        assert rec["kept"] == "None" and rec.get("thumbnail"), (module, rec["kept"])
        rows, cols = rec["thumbnail_shape"]
        assert (rows, cols) == (16, 32)
        expected = _adaptive_block_means(values.reshape(values.shape[0], -1), rows, cols)
        recorded[module] = np.array(rec["thumbnail"], dtype=np.float64).reshape(rows, cols)
        np.testing.assert_allclose(recorded[module], expected, rtol=1e-5, atol=1e-6)
    head = output_of("head")  # small, but batch-sized: the followed rows, like every activation
    assert (head["kept"], head["kept_rows"]) == ("LeadingRows", 4), head
    params = [t for t in run.tensors.values() if t.get("role") in ("Weight", "Grad")]
    assert params and all(t["kept"] == "Full" for t in params), [(t["name"], t["kept"]) for t in params]

    state_file, shot = tmp_path / "state.json", tmp_path / "thumbnail.png"
    v = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", str(build / "bin" / "tvis-view"), path,
                        "--page", "Replay", "--step", "0", "--phase", "forward", "--module", "features.1",
                        "--frames", "20", "--size", "1400x900", "--state-json", str(state_file),
                        "--screenshot", str(shot)], capture_output=True, text=True, timeout=300)
    assert v.returncode == 0, v.stderr[-2000:]
    layer = json.loads(state_file.read_text())["view"]["layer"]
    assert layer["module"] == "features.1" and "--max-run-bytes" in layer.get("problem", ""), layer
    shown = layer["thumbnail"]
    assert (shown["rows"], shown["cols"]) == (16, 32)
    # the viewer prints floats exactly; the test's reader (flatc's JSON) to about 7 digits
    np.testing.assert_allclose(np.array(shown["values"]), recorded["features.1"], rtol=1e-5, atol=1e-7)
    if os.environ.get("TVIS_TEST_SCREENSHOTS"):
        import shutil
        shutil.copy(shot, os.environ["TVIS_TEST_SCREENSHOTS"])
