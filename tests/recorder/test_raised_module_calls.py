"""A module call that raises (caught by the script, as an out-of-memory skip
would be) never reaches its forward hook; it must still leave the session's
open calls, or no later call is top-level again: a script without a
DataLoader would never stop after --steps and every later event would nest
under the failed call.
"""
from conftest import SCRIPTS, load_run, run_file_of, run_plain, run_tvis, step_lines


def test_caught_forward_error_leaves_no_open_call(tvis, tmp_path):
    script = SCRIPTS / "raised_call_caught.py"
    plain = run_plain(script, "--steps", 5)
    assert plain.returncode == 0, plain.stderr
    assert len(step_lines(plain.stdout)) == 5
    rec = run_tvis(tvis, script, "--steps", 5, steps=2, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout)[:2], "not stopped after 2 steps, or losses differ"
    run = load_run(run_file_of(rec.stdout))
    assert run.meta["steps_recorded"] == 2
    calls = [e for e in run.events.values() if e["kind"] == "ModuleCall"]
    seq = sorted((e for e in calls if e["class_name"] == "Sequential"), key=lambda e: e["id"])
    # the failed model call, then one per recorded step: all siblings, none nested in the failed one
    assert len(seq) == 3
    assert len({e["parent"] for e in seq}) == 1, [(e["id"], e["parent"]) for e in seq]
    failed = {seq[0]["id"]} | {e["id"] for e in calls if e["parent"] == seq[0]["id"]}
    assert [e["class_name"] for e in calls if e["parent"] in failed] == ["Linear", "Flaky"]
