"""The loss analysis makes no loss call of the script's: recomputing
per-sample losses with F.cross_entropy (class weights or label smoothing)
must not pass through tvis's own loss patch and be recorded as a second
LossCall event (with its own copies of the logits) in the loss phase.
"""
import pytest

from conftest import SCRIPTS, load_run, record_matching_plain


def test_analysis_makes_no_loss_call_of_its_own(tvis, tmp_path):
    script = SCRIPTS / "loss_weighted.py"
    path, out, _ = record_matching_plain(tvis, script, 2, tmp_path / "runs")
    run = load_run(path)
    calls = [e for e in run.events.values() if e["kind"] == "LossCall"]
    assert sorted(e["step"] for e in calls) == [0, 1], [(e["id"], e["step"]) for e in calls]
    assert sorted(l["event"] for l in run.losses) == sorted(e["id"] for e in calls)
    # the analysis itself still ran: per-sample losses with the weights and smoothing
    assert all(len(l["samples"]) > 0 for l in run.losses)


def test_weighted_loss_module_per_sample_losses(tvis, tmp_path):
    """For an nn.CrossEntropyLoss / NLLLoss module the analysis reads the
    module's class `weight` besides reduction, ignore_index and
    label_smoothing: per-sample losses are recorded weighted."""
    script = SCRIPTS / "loss_weighted_module.py"
    path, out, _ = record_matching_plain(tvis, script, 2, tmp_path / "runs")
    expected = {}
    for line in out.splitlines():
        if line.startswith("per_sample "):
            _, step, *vals = line.split()
            expected[int(step)] = [float(v) for v in vals]
    run = load_run(path)
    assert sorted(l["step"] for l in run.losses) == [0, 1]
    for l in run.losses:
        got = [s["loss"] for s in sorted(l["samples"], key=lambda s: s.get("sample", 0))]
        assert got == pytest.approx(expected[l["step"]], rel=1e-9), (l["step"], got, expected[l["step"]])
