"""`tvis diff`: where two recordings of scripts/diff_train.py part ways. The
same arguments twice agree (exit 0); a different dropout seed parts at the
dropout call of step 0; one layer's weights scaled by 1.001 part at that
layer's weight; tolerances hide differences below them."""
import json
import subprocess

import pytest

from conftest import SCRIPTS, run_file_of, run_tvis

SCRIPT = SCRIPTS / "diff_train.py"
_recorded = {}


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("diff_runs")


def record(tvis, runs_dir, name, *args):
    if name not in _recorded:
        p = run_tvis(tvis, SCRIPT, "--steps", 5, *args, steps=3, out=runs_dir / name)
        assert p.returncode == 0, p.stderr
        _recorded[name] = run_file_of(p.stdout)
    return _recorded[name]


def diff(tvis, a, b, *opts):
    p = subprocess.run([tvis, "diff", "--json", *opts, a, b], capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    report = json.loads(p.stdout)
    assert p.returncode == (0 if report["same"] else 1), report
    return report


def test_the_same_script_twice_agrees(tvis, runs_dir):
    report = diff(tvis, record(tvis, runs_dir, "a"), record(tvis, runs_dir, "b"))
    assert report["same"] is True and report["first"] is None and report["largest"] == []
    assert report["identical"] is True and report["layers"] == []
    assert report["events"]["only_a"] == 0 and report["events"]["only_b"] == 0
    assert report["events"]["matched"] > 20 and report["tensors"]["compared"] > 50, report
    human = subprocess.run([tvis, "diff", record(tvis, runs_dir, "a"), record(tvis, runs_dir, "b")],
                           capture_output=True, text=True, timeout=120)
    assert human.returncode == 0 and "the runs agree" in human.stdout, human.stdout


def test_a_dropout_seed_parts_at_the_dropout_call_of_step_0(tvis, runs_dir):
    report = diff(tvis, record(tvis, runs_dir, "a"), record(tvis, runs_dir, "seed", "--dropout-seed", 1))
    first = report["first"]
    assert (first["step"], first["phase"], first["module"], first["role"]) == (0, "forward", "drop", "output"), first
    assert first["position"] == {"page": "Replay", "step": 0, "phase": "forward", "module": "drop"}, first
    assert (first["what"], first["module"], first["step"]) == ("output", "drop", 0) and first["max_abs"] > 0, first
    assert isinstance(first["event"], int) and first["link"] == "page=Replay&step=0&phase=forward&module=drop", first
    assert report["identical"] is False and report["layers"] and {"module", "step", "what", "max_abs"} <= set(report["layers"][0])
    assert report["tensors"]["differing"] > 0 and report["largest"], report
    # fc1 ran before the dropout call: at step 0 only its gradient (through the other mask) differs
    fc1 = [r for r in report["largest"] if r["step"] == 0 and r["module"] == "fc1"]
    assert fc1 and fc1[0]["phase"] == "backward", fc1
    # tolerances wider than any statistic's difference: the runs agree
    assert diff(tvis, record(tvis, runs_dir, "a"), record(tvis, runs_dir, "seed", "--dropout-seed", 1),
                "--atol", "1e9")["same"] is True


def test_a_perturbed_layer_parts_at_its_weight(tvis, runs_dir):
    report = diff(tvis, record(tvis, runs_dir, "a"), record(tvis, runs_dir, "fc2", "--perturb", "fc2"))
    first = report["first"]
    assert (first["step"], first["name"], first["role"]) == (0, "fc2.weight", "weight"), first
    assert first["position"] == {"page": "Weights", "step": 0, "param": "fc2.weight"}, first
    assert first["what"] in ("weight", "grad", "update") and first["module"] == "fc2.weight", first
    assert abs(first["b"] / first["a"] - 1.001) < 1e-5, first  # l2 scales with the weights


def test_an_unreadable_run_exits_2(tvis, runs_dir, tmp_path):
    bad = tmp_path / "run.tvis"
    bad.write_bytes(b"\0" * 64)
    p = subprocess.run([tvis, "diff", record(tvis, runs_dir, "a"), str(bad)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.startswith("tvis diff: "), (p.returncode, p.stderr)
