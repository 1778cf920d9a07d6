"""Gradient clipping recorded and shown: each torch.nn.utils.clip_grad_norm_
call of a recorded step is a GradClipRecord holding the norm the script's
own call returned, bit for bit, and the Loss page of tvis-view (Xvfb) says
what the call did. Training is unchanged (record_matching_plain)."""
import json
import re
import subprocess

import pytest

from conftest import BUILD_DIR, SCRIPTS, load_run, record_matching_plain

SCRIPT = SCRIPTS / "grad_clip_train.py"


def script_norms(stdout):
    """{step: repr of the norm} as the script printed it."""
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^step (\d+) loss \S+ norm (\S+)$", stdout, re.M)}


def clip_records(path):
    return load_run(path).records.get("grad_clip", [])


def test_each_call_recorded_with_the_scripts_norm(tvis, tmp_path):
    path, rec_out, _ = record_matching_plain(tvis, SCRIPT, 3, tmp_path / "run")
    norms = script_norms(rec_out)
    clips = clip_records(path)
    assert [c["step"] for c in clips] == [0, 1, 2], clips
    for c in clips:
        assert repr(c["total_norm"]) == norms[c["step"]], (c, norms)
        assert c["max_norm"] == 1.0 and c["norm_type"] == 2.0
        assert c["parameters"] == 4  # two Linear layers' weights and biases, every one with a gradient
        line = next(i for i, l in enumerate(SCRIPT.read_text().splitlines(), 1) if "clip_grad_norm_(" in l)
        assert c["call_site"] == "grad_clip_train.py:%d" % line, c


def test_non_finite_norm_and_inf_norm_type(tvis, tmp_path):
    path, rec_out, _ = record_matching_plain(tvis, SCRIPT, 3, tmp_path / "run", "--inf-at", 1,
                                             "--norm-type", "inf")
    clips = clip_records(path)
    assert [c["step"] for c in clips] == [0, 1, 2]
    assert clips[0]["norm_type"] == float("inf") and repr(clips[0]["total_norm"]) == script_norms(rec_out)[0]
    assert clips[1]["total_norm"] != clips[1]["total_norm"]  # nan, as the script saw it
    assert script_norms(rec_out)[1] == "nan"


def test_loss_page_says_what_the_call_did(tvis, tmp_path):
    path, rec_out, _ = record_matching_plain(tvis, SCRIPT, 3, tmp_path / "run", "--inf-at", 2)
    view = BUILD_DIR / "bin" / "tvis-view"
    state, shot = tmp_path / "loss.json", tmp_path / "loss.png"
    p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1400x900x24", str(view), str(path), "--page", "Loss",
                        "--step", "1", "--size", "1300x850", "--frames", "30", "--screenshot", str(shot),
                        "--state-json", str(state)], capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    g = json.loads(state.read_text())["view"]["grad_clip"]
    assert g["ready"] and [c["step"] for c in g["calls"]] == [0, 1, 2], g
    norms = script_norms(rec_out)
    first = g["calls"][1]
    assert repr(first["total_norm"]) == norms[1] and first["clipped"], first
    assert first["coefficient"] == pytest.approx(1.0 / (first["total_norm"] + 1e-6), rel=1e-12)
    assert "every gradient was multiplied by" in first["words"], first
    bad = g["calls"][2]
    assert bad["total_norm"] is None and bad["coefficient"] is None and "not finite" in bad["words"], bad
    assert shot.stat().st_size > 10_000


def test_a_run_without_clipping_has_no_records_and_no_panel(tvis, tmp_path):
    path, _, _ = record_matching_plain(tvis, SCRIPT, 2, tmp_path / "run", "--no-clip")
    assert clip_records(path) == []
