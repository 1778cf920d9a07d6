"""`tvis diagnose`'s mode check on BatchNorm (scripts/batchnorm_mode_train.py):
a model left in eval mode after an evaluation trains with BatchNorm on its
running statistics (a warning naming the BatchNorm module); a BatchNorm
frozen by hand is a note; the healthy twin of the same shape has no mode
finding."""
import json
import subprocess

import pytest

from conftest import SCRIPTS, run_file_of, run_tvis

SCRIPT = SCRIPTS / "batchnorm_mode_train.py"


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("batchnorm_mode_runs")


def mode_findings(tvis, runs_dir, bug):
    p = run_tvis(tvis, SCRIPT, "--bug", bug, "--steps", 5, steps=3, out=runs_dir / bug)
    assert p.returncode == 0, p.stderr
    d = subprocess.run([tvis, "diagnose", "--json", run_file_of(p.stdout)], capture_output=True, text=True, timeout=120)
    assert d.returncode in (0, 1), d.stderr
    return [f for f in json.loads(d.stdout)["findings"] if f["kind"] == "mode"]


def test_eval_mode_left_on_trains_batchnorm_on_running_statistics(tvis, runs_dir):
    found = mode_findings(tvis, runs_dir, "eval_left")
    assert len(found) == 1, found
    f = found[0]
    assert f["evidence"]["case"] == "eval_mode_in_training" and f["severity"] == "warning", f
    assert (f["module"], f["phase"], f["step"]) == ("bn1", "forward", 1), f
    assert f["evidence"]["model_mode_wrong"] == 1 and f["evidence"]["modules"] == 2, f
    assert "BatchNorm" in f["message"], f["message"]


def test_a_batchnorm_frozen_by_hand_is_a_note(tvis, runs_dir):
    found = mode_findings(tvis, runs_dir, "frozen_bn")
    assert len(found) == 1, found
    f = found[0]
    assert f["evidence"]["case"] == "eval_mode_in_training" and f["severity"] == "note", f
    assert (f["module"], f["step"]) == ("bn1", 0) and f["evidence"]["model_mode_wrong"] == 0, f


def test_the_healthy_twin_has_no_mode_finding(tvis, runs_dir):
    assert mode_findings(tvis, runs_dir, "healthy") == []
