"""A recording whose script is SIGKILLed mid-run keeps the steps it finished.

The recorder writes every call that has ended at the end of each step, even
while enclosing calls (the script's `<module>`, `main`) are still open, so a
script killed in its third step leaves a run whose recovered events hold the
module calls, tensors and optimizer records of the first two steps, and the
source text of the files seen (written at each step's flush). Read back
by `tvis inspect` (complete false, a notice saying what was recovered, calls
in call order), by the Python reader, and by the viewer's run model over the
real file (tests/viewer Catch2 case tagged [real], when built).
"""
import os
import subprocess
from pathlib import Path

import pytest

from conftest import inspect_json, load_run
from killed_recording import SCRIPT, record_and_kill

MODULES = ["conv", "act", "pool", "fc", "CrossEntropyLoss"]  # after Net, in call order


@pytest.fixture(scope="module")
def killed_run(tvis, tmp_path_factory):
    return record_and_kill(tvis, tmp_path_factory.mktemp("killed"))


def test_sigkilled_run_keeps_finished_steps(tvis, killed_run):
    run_file = killed_run

    summary = inspect_json(tvis, run_file)
    assert summary["complete"] is False
    assert summary["steps"] == 2
    assert any("recovered" in n for n in summary["notices"]), summary["notices"]
    assert summary["modules"][:len(MODULES) + 1] == ["Net"] + MODULES  # call order: by event id

    run = load_run(run_file)
    assert not run.complete and "recovered" in run.notice
    calls = [e for e in run.events.values() if e["kind"] == "ModuleCall"]
    for step in (0, 1):
        names = [e["name"] for e in sorted(calls, key=lambda e: e["id"]) if e["step"] == step]
        assert names == ["Net"] + MODULES, (step, names)
        for e in calls:
            if e["step"] == step:
                assert e["outputs"] and all(t in run.tensors for t in e["outputs"]), e
                assert e["grad_outputs"], "dL/d(output) of %s at step %d" % (e["name"], step)
    # the calls still open when the script was killed are not in the file
    open_calls = {e["name"] for e in run.events.values() if e["kind"] == "FunctionCall"}
    assert "main" not in open_calls and "<module>" not in open_calls
    assert [s["step"] for s in run.optimizer_steps] == [0, 1]
    for s in run.optimizer_steps:
        assert len(s["params"]) == 4 and all(p["update"] in run.tensors for p in s["params"])



def test_sigkilled_run_keeps_source_text(killed_run):
    """Each step's flush writes the text of the files seen so far (those not
    written before), so a killed run, which never reaches finalize, has them."""
    run = load_run(killed_run)
    ids = [f["id"] for f in run.sources]
    assert len(ids) == len(set(ids)), "a file is written once: %s" % ids
    script = [f for f in run.sources if Path(f["path"]).resolve() == SCRIPT]
    assert len(script) == 1, [f["path"] for f in run.sources]
    assert script[0]["text"] == SCRIPT.read_text()
    # every call site the written events name is a recorded file
    sites = {e["call_file"] for e in run.events.values() if e.get("call_line", 0) > 0}
    assert sites and sites <= set(ids), (sites, ids)
    assert script[0]["id"] in sites


def test_viewer_reads_sigkilled_run(build, killed_run):
    """The viewer's [real] case over the killed run: the calls never written
    (`<module>`, `main`) are final "not recorded" rows, every written call is
    reached by keys with its tensors, and the run model's file list names
    every call site."""
    run_file = killed_run
    viewer_tests = build / "bin" / "test_viewer"
    if not viewer_tests.exists():
        pytest.skip("bin/test_viewer not built: the viewer's run model was not checked on this run")
    v = subprocess.run([str(viewer_tests), "[real]"], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, TVIS_TEST_REAL_RUNS=str(run_file)))
    assert v.returncode == 0, v.stdout[-4000:] + v.stderr[-2000:]
    assert "All tests passed" in v.stdout, v.stdout[-2000:]
