"""Own time (recorder/include/tvis/recorder/own_time.h): phase and call times
keep tvis's own work apart, so the timeline is a profile of the user's step.

On torchvision's ResNet-18 with Grad-CAM (its gradient passes run inside the
Loss phase, before the user's backward):
- the Loss phase's wall time is mostly tvis's (own_ns), its user time small;
- recorded again with --no-gradcam, the Loss phase's wall time drops by about
  the own time Grad-CAM added, and its user time stays about the same: own
  time accounts for the difference;
- every event: 0 <= own_ns <= wall; nested events nest on both clocks (a
  child's own time is within its parent's, children's own times sum to at
  most the parent's, the user's clock spans nest);
- training is bit for bit the same with and without tvis.
"""
import pytest

from conftest import SCRIPTS, load_run, run_plain, run_tvis, step_lines


def record(tvis, tmp_path, name, opts=(), steps=2):
    """Runs gradcam_resnet18.py plainly and under tvis; asserts identical step lines; returns the run."""
    plain = run_plain(SCRIPTS / "gradcam_resnet18.py", "--steps", steps, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, SCRIPTS / "gradcam_resnet18.py", "--steps", steps, steps=steps, out=tmp_path / name,
                   opts=opts, cwd=tmp_path)
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout)[:steps] and len(step_lines(rec.stdout)) == steps, \
        (rec.stdout, plain.stdout)
    return load_run(next((tmp_path / name).glob("*/run.tvis")))


def phase(run, step, name):
    t = [t for t in run.meta["phase_timings"] if t["step"] == step and t["phase"] == name]
    assert len(t) == 1, run.meta["phase_timings"]
    return t[0]


def wall(e):
    return e["t_end_ns"] - e["t_begin_ns"]


def user_span(e):
    b = e["t_begin_ns"] - e["own_before_ns"]
    return b, b + wall(e) - e["own_ns"]


@pytest.fixture(scope="module")
def runs(build, tmp_path_factory):
    tvis = str(build / "bin" / "tvis")
    tmp = tmp_path_factory.mktemp("own_time")
    return record(tvis, tmp, "cam"), record(tvis, tmp, "nocam", opts=["--no-gradcam"])


def test_loss_phase_is_mostly_tvis_with_gradcam(runs):
    cam, _ = runs
    for step in (0, 1):
        loss = phase(cam, step, "Loss")
        assert 0 <= loss["own_ns"] <= loss["ns"], loss
        user = loss["ns"] - loss["own_ns"]
        # Grad-CAM's passes over ResNet-18 take milliseconds; the loss itself microseconds, plus what a
        # loaded machine adds by descheduling the process inside the few unbracketed lines (4.8 ms seen
        # in CI beside other suites; the next test allows the same 5 ms). Passes not counted as tvis's
        # would put their whole time (tens of ms) here.
        assert loss["own_ns"] > 2e6 and user < 0.1 * loss["ns"] + 5e6, loss
        for t in cam.meta["phase_timings"]:
            assert 0 <= t["own_ns"] <= t["ns"], t


def test_own_time_accounts_for_gradcam(runs):
    cam, nocam = runs
    for step in (0, 1):
        on, off = phase(cam, step, "Loss"), phase(nocam, step, "Loss")
        added_wall = on["ns"] - off["ns"]
        added_own = on["own_ns"] - off["own_ns"]
        assert added_wall > 2e6, (on, off)
        # the wall time Grad-CAM added is its own time (within 20% and 2 ms of scheduling noise)
        assert abs(added_wall - added_own) < 0.2 * added_wall + 2e6, (on, off)
        # and the user's loss time does not grow with it: not by a tenth of Grad-CAM's time, where
        # unaccounted passes would add all of it (a loaded CI machine deschedules the process inside
        # the few unbracketed lines: 6 ms seen against 0.2 ms, with builds running beside it)
        assert (on["ns"] - on["own_ns"]) < (off["ns"] - off["own_ns"]) + 5e6 + 0.1 * added_wall, (on, off)


def test_events_nest_on_both_clocks(runs):
    cam, _ = runs
    events = cam.events
    timed = [e for e in events.values() if e["t_end_ns"] >= e["t_begin_ns"] and e["step"] >= 0]
    assert timed
    children = {}
    for e in timed:
        assert 0 <= e["own_ns"] <= wall(e), e
        assert 0 <= e["own_before_ns"] <= e["t_begin_ns"], e
        if e["parent"] >= 0 and e["parent"] in events:
            children.setdefault(e["parent"], []).append(e)
    for pid, kids in children.items():
        p = events[pid]
        pb, pe = user_span(p)
        for k in kids:
            assert k["own_before_ns"] >= p["own_before_ns"], (p, k)
            assert k["own_before_ns"] + k["own_ns"] <= p["own_before_ns"] + p["own_ns"], (p, k)
            kb, ke = user_span(k)
            # the clock and the own total are read one after the other: nanoseconds apart
            assert pb - 1000 <= kb <= ke <= pe + 1000, (p, k)
        assert sum(k["own_ns"] for k in kids) <= p["own_ns"], (p, kids)
    # the LossCall's own time is inside its phase's
    for step in (0, 1):
        calls = [e for e in timed if e["kind"] == "LossCall" and e["step"] == step]
        assert calls and sum(e["own_ns"] for e in calls) <= phase(cam, step, "Loss")["own_ns"]
