"""`tvis diagnose`: each check names the mistake planted in a real training
script (scripts/diagnose_train.py --bug ...) and says nothing about the
healthy run of the same shape. Runs are recorded with `tvis run` on the
suite's torch; diagnose reads statistics and indexes only."""
import json
import os
import subprocess

import pytest

from conftest import SCRIPTS, run_file_of, run_tvis

SCRIPT = SCRIPTS / "diagnose_train.py"

# bug -> (the kind it must produce, its severity, the link keys it must carry)
CASES = {
    "nan_layer": ("non_finite", "error", {"module": "broken", "phase": "forward"}),
    "vanishing": ("vanishing_gradients", "warning", {"phase": "backward"}),
    "exploding": ("exploding_gradients", "warning", {"phase": "backward"}),
    "lr": ("update_ratio", "error", {"page": "Weights", "phase": "optimizer"}),
    "lr0_group": ("param_not_updated", "warning", {"page": "Weights"}),
    "unused": ("param_without_grad", "warning", {"page": "Weights"}),
    "softmax": ("probabilities_as_logits", "error", {"page": "Loss", "phase": "loss"}),
    "one_class": ("constant_targets", "warning", {"page": "Loss"}),
    "raw_inputs": ("unnormalized_inputs", "warning", {"phase": "data"}),
    "same_batch": ("repeated_batch", "warning", {"phase": "data"}),
    "eval_mode": ("mode", "warning", {"module": "drop", "phase": "forward"}),
    "train_eval": ("mode", "warning", {"module": "drop", "phase": "evaluation"}),
    "no_zero_grad": ("stale_gradients", "warning", {"page": "Weights", "phase": "backward"}),
    "dead_relu": ("dead_units", "warning", {"module": "act", "phase": "forward"}),
    "not_in_optimizer": ("not_optimized", "warning", {"page": "Weights", "phase": "optimizer", "param": "head.weight"}),
    "rising": ("loss_trend", "warning", {"page": "Loss"}),
    "loss_nan": ("loss_trend", "error", {"page": "Loss", "phase": "loss"}),
    "nan_input": ("non_finite", "error", {"page": "Replay", "phase": "data"}),
    "sum_divisor": ("loss_scale", "warning", {"page": "Loss", "phase": "loss"}),
    "undivided": ("loss_scale", "note", {"page": "Loss", "phase": "loss"}),
}


_recorded = {}


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("diagnose_runs")


def record(tvis, runs_dir, bug, *extra):
    """The run of `--bug BUG EXTRA...`, recorded once for every test of this file."""
    key = " ".join([bug, *map(str, extra)])
    if key not in _recorded:
        p = run_tvis(tvis, SCRIPT, "--bug", bug, "--steps", 5, *extra, steps=3, out=runs_dir / key.replace(" ", "_"))
        assert p.returncode == 0, p.stderr
        _recorded[key] = run_file_of(p.stdout)
    return _recorded[key]


def diagnose(tvis, path):
    p = subprocess.run([tvis, "diagnose", "--json", path], capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    report = json.loads(p.stdout)
    has_error = any(f["severity"] == "error" for f in report["findings"])
    assert p.returncode == (1 if has_error else 0), (p.returncode, report["findings"])
    return report


def test_healthy_run_has_no_findings(tvis, runs_dir):
    path = record(tvis, runs_dir, "none")
    report = diagnose(tvis, path)
    assert report["findings"] == [], report["findings"]
    assert report["counts"] == {"error": 0, "warning": 0, "note": 0}
    # statistics and indexes only: tensor values are never read
    read = report["read"]
    assert read["bytes_skipped"] > 0 and read["bytes"] + read["bytes_skipped"] <= os.path.getsize(path)
    human = subprocess.run([tvis, "diagnose", path], capture_output=True, text=True, timeout=120)
    assert human.returncode == 0 and "no findings" in human.stdout, human.stdout


@pytest.mark.parametrize("bug", sorted(CASES))
def test_planted_bug_is_named(tvis, runs_dir, bug):
    kind, severity, link = CASES[bug]
    report = diagnose(tvis, record(tvis, runs_dir, bug))
    found = [f for f in report["findings"] if f["kind"] == kind]
    assert found, (bug, [(f["kind"], f["message"]) for f in report["findings"]])
    f = found[0]
    assert f["severity"] == severity, f
    assert f["message"].endswith(".") and len(f["message"]) > 40, f["message"]
    assert f["evidence"], f
    for key, value in link.items():
        assert f["position"].get(key) == value, (key, f["position"])
        if key != "page":  # the same position as the finding's own keys, and as the link's query
            assert f[key] == value, (key, f)
        assert "%s=%s" % (key, value) in f["link"].split("&"), (key, f["link"])
    assert isinstance(f["step"], int) and f["step"] >= 0 and f["position"]["step"] == f["step"], f
    assert set(f) >= {"kind", "severity", "step", "phase", "module", "param", "message", "evidence", "link"}, sorted(f)
    # worst first: no finding after a less severe one
    order = {"error": 0, "warning": 1, "note": 2}
    ranks = [order[x["severity"]] for x in report["findings"]]
    assert ranks == sorted(ranks), ranks


def test_nan_names_the_producer_from_finite_inputs(tvis, runs_dir):
    report = diagnose(tvis, record(tvis, runs_dir, "nan_layer"))
    first = report["findings"][0]
    assert first["kind"] == "non_finite", first
    assert "broken" in first["message"] and "from finite inputs" in first["message"], first["message"]
    assert first["step"] == 0
    assert first["evidence"]["nan"] > 0


def test_unused_names_the_parameters(tvis, runs_dir):
    report = diagnose(tvis, record(tvis, runs_dir, "unused"))
    f = next(f for f in report["findings"] if f["kind"] == "param_without_grad")
    assert f["param"].startswith("spare."), f
    assert f["evidence"]["parameters"] == 2, f  # spare.weight and spare.bias
    assert "hidden" not in f["message"] and "head" not in f["message"], f["message"]


def test_accumulation_is_not_carried_gradients(tvis, runs_dir):
    """Two backwards of half a batch before each optimizer step (deliberate
    accumulation, zero_grad after each step): no stale_gradients, nothing else."""
    report = diagnose(tvis, record(tvis, runs_dir, "none", "--accumulate", 2))
    assert report["findings"] == [], report["findings"]


def test_missing_zero_grad_is_seen_from_the_second_step(tvis, runs_dir):
    report = diagnose(tvis, record(tvis, runs_dir, "no_zero_grad"))
    f = next(f for f in report["findings"] if f["kind"] == "stale_gradients")
    assert f["step"] == 1, f  # step 0 began with no gradient at all
    assert f["evidence"]["parameters"] == f["evidence"]["checked"] > 0, f
    assert f["evidence"]["steps"] == 2 and f["evidence"]["norm"] > 0, f


def test_eval_mode_left_on_after_an_evaluation(tvis, runs_dir):
    """model.eval() for the evaluation after step 0, model.train() never called:
    step 0 trained in train mode, the later ones in eval mode."""
    report = diagnose(tvis, record(tvis, runs_dir, "eval_mode"))
    f = next(f for f in report["findings"] if f["kind"] == "mode" and f["evidence"]["case"] == "eval_mode_in_training")
    assert f["step"] == 1 and f["evidence"]["model_mode_wrong"] == 1, f
    assert not [g for g in report["findings"] if g["kind"] == "mode" and g["evidence"]["case"] == "train_mode_in_evaluation"]


def line_of(text):
    """The 1-based line of diagnose_train.py holding `text` (exactly one)."""
    lines = [i + 1 for i, line in enumerate(SCRIPT.read_text().splitlines()) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def test_a_module_finding_carries_its_source_in_the_project(tvis, runs_dir):
    """`source`: a class the user wrote -> its definition (forward's def line,
    as the recorder notes it); a torch layer -> the line of the user's forward
    that calls it."""
    f = diagnose(tvis, record(tvis, runs_dir, "nan_layer"))["findings"][0]
    assert f["module"] == "broken", f
    lines = SCRIPT.read_text().splitlines()
    forward = next(i + 1 for i in range(line_of("class LogOfShifted"), len(lines)) if "def forward" in lines[i])
    assert f["source"] == {"file": str(SCRIPT), "display": SCRIPT.name, "line": forward, "site": "definition"}, f["source"]
    report = diagnose(tvis, record(tvis, runs_dir, "eval_mode"))
    f = next(f for f in report["findings"] if f["kind"] == "mode")
    assert f["source"] == {"file": str(SCRIPT), "display": SCRIPT.name, "line": line_of("return self.head(self.drop(x))"),
                           "site": "call"}, f["source"]
    unplaced = [g for g in report["findings"] if g["module"] is None and "source" in g]
    assert not unplaced, unplaced


def test_rising_loss_names_the_learning_rate(tvis, runs_dir):
    """lr 3: the loss grows about tenfold a step, still finite over the 3 recorded steps."""
    report = diagnose(tvis, record(tvis, runs_dir, "rising"))
    f = next(f for f in report["findings"] if f["kind"] == "loss_trend")
    ev = f["evidence"]
    assert ev["case"] == "loss_rising" and ev["steps"] == 3, f
    assert ev["last"] > 10 * ev["first"] > 0, f
    assert ev["learning_rate"] == "3" and "learning rate 3" in f["message"], f
    assert f["step"] == 2, f  # the last recorded step, where the rise shows in full


def test_non_finite_loss_is_named_with_its_learning_rate(tvis, runs_dir):
    """lr 1e4: the loss overflows to NaN at step 2. The user sees where it began
    (non_finite, an earlier or the same step) and the loss itself (loss_trend,
    an error naming the learning rate); nothing calls it a mere rise."""
    report = diagnose(tvis, record(tvis, runs_dir, "loss_nan"))
    trend = [f for f in report["findings"] if f["kind"] == "loss_trend"]
    assert len(trend) == 1, trend
    f = trend[0]
    assert f["evidence"]["case"] == "loss_non_finite" and f["severity"] == "error", f
    assert f["step"] == 2 and f["evidence"]["value"] in ("NaN", "Inf", "-Inf"), f
    assert f["evidence"]["learning_rate"] == "1e+04" and "learning rate 1e+04" in f["message"], f
    first = next(g for g in report["findings"] if g["kind"] == "non_finite")
    assert first["step"] <= f["step"], first


def test_nan_in_the_data_is_named_before_any_layer(tvis, runs_dir):
    report = diagnose(tvis, record(tvis, runs_dir, "nan_input"))
    first = report["findings"][0]
    assert first["kind"] == "non_finite" and first["step"] == 0 and first["phase"] == "data", first
    assert "the data itself holds it" in first["message"], first["message"]
    assert first["evidence"]["nan"] > 0 and first["evidence"]["inf"] == 0, first
    # the loss it leads to is named too, at the same step
    trend = next(f for f in report["findings"] if f["kind"] == "loss_trend")
    assert trend["evidence"]["case"] == "loss_non_finite" and trend["step"] == 0, trend


def test_sum_loss_divided_by_a_constant_is_named(tvis, runs_dir):
    """cross_entropy(reduction="sum") / 4 on batches of 32: 8 times the mean's gradients."""
    report = diagnose(tvis, record(tvis, runs_dir, "sum_divisor"))
    f = next(f for f in report["findings"] if f["kind"] == "loss_scale")
    ev = f["evidence"]
    assert ev["reduction"] == "sum" and ev["divisor"] == pytest.approx(4, rel=1e-3), f
    assert ev["batch"] == 32 and ev["expected_divisor"] == 32 and ev["backwards"] == 1, f
    assert ev["case"] == "divisor" and f["step"] == 0 and "divided by 4" in f["message"], f


def test_accumulation_left_undivided_is_a_note(tvis, runs_dir):
    """Four backwards of a quarter batch before each optimizer step, each mean
    loss left undivided: four times one batch's gradients."""
    report = diagnose(tvis, record(tvis, runs_dir, "undivided"))
    f = next(f for f in report["findings"] if f["kind"] == "loss_scale")
    assert f["evidence"]["case"] == "undivided_accumulation" and f["severity"] == "note", f
    assert f["evidence"]["backwards"] == 4 and f["step"] == 0, f


def test_accumulation_divided_by_its_steps_is_not_a_loss_scale(tvis, runs_dir):
    """The healthy twin of sum_divisor: four backwards of a quarter batch, each
    mean loss divided by 4, before each optimizer step: nothing at all."""
    report = diagnose(tvis, record(tvis, runs_dir, "none", "--accumulate", 4))
    assert report["findings"] == [], report["findings"]


def test_targets_outside_the_classes_are_named_from_the_call_that_raised(tvis, runs_dir):
    """Labels of 5 classes for a head of 4: CPU cross_entropy raises at step 0
    and the script stops. The recorded loss call keeps its input and targets,
    and diagnose names the mismatch from them."""
    p = run_tvis(tvis, SCRIPT, "--bug", "target_range", "--steps", 5, steps=3, out=runs_dir / "target_range")
    assert p.returncode != 0 and "out of bounds" in p.stderr, (p.returncode, p.stderr[-2000:])
    report = diagnose(tvis, run_file_of(p.stdout))
    f = report["findings"][0]
    assert f["kind"] == "target_out_of_range" and f["severity"] == "error" and f["step"] == 0, f
    assert f["evidence"]["target_max"] == 4 and f["evidence"]["classes"] == 4, f
    assert f["phase"] == "loss" and "page=Loss" in f["link"].split("&"), f
    assert "raised" in f["message"], f["message"]


def test_unreadable_run_exits_2(tvis, tmp_path):
    bad = tmp_path / "run.tvis"
    bad.write_bytes(b"not a run at all" * 8)
    p = subprocess.run([tvis, "diagnose", str(bad)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.startswith("tvis diagnose: "), (p.returncode, p.stderr)
    assert p.stdout == ""


def test_a_run_without_a_completed_step_has_nothing_to_judge(tvis, tmp_path):
    """A script that ends before its first optimizer step: diagnose exits 2
    with the reason, never "no findings"; --json says judged false."""
    script = tmp_path / "no_step.py"
    script.write_text("import torch\nfrom torch import nn\n"
                      "model = nn.Linear(4, 2)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                      "loss = model(torch.randn(8, 4)).pow(2).mean()\nloss.backward()\nprint('stopped early')\n")
    p = run_tvis(tvis, script, steps=3, out=tmp_path / "runs")
    assert p.returncode == 0, p.stderr
    path = run_file_of(p.stdout)
    human = subprocess.run([tvis, "diagnose", path], capture_output=True, text=True, timeout=120)
    assert human.returncode == 2, (human.returncode, human.stdout, human.stderr)
    assert "nothing to judge" in human.stderr and "no completed optimizer step" in human.stderr, human.stderr
    assert "no findings" not in human.stdout
    js = subprocess.run([tvis, "diagnose", "--json", path], capture_output=True, text=True, timeout=120)
    assert js.returncode == 2, js.stderr
    report = json.loads(js.stdout)
    assert report["judged"] is False and "no completed optimizer step" in report["nothing_to_judge"], report


def test_a_script_that_ends_early_is_judged_on_the_steps_it_recorded(tvis, runs_dir):
    """--steps 3 asked, the script trains 2: judged (exit 0, no findings), not refused."""
    p = run_tvis(tvis, SCRIPT, "--bug", "none", "--steps", 2, steps=3, out=runs_dir / "ends_early")
    assert p.returncode == 0, p.stderr
    report = diagnose(tvis, run_file_of(p.stdout))
    assert report["judged"] is True and report["nothing_to_judge"] is None, report
    assert report["findings"] == [], report["findings"]
