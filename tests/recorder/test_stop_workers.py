"""Stopping after N steps ends the script's real DataLoader worker processes
as Python's exit would (they are daemonic): none is left running, holding the
output pipe open, when `tvis run` returns."""
import os
import subprocess

from conftest import SCRIPTS


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead but not yet reaped by its new parent
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_real_workers_end_with_the_stopped_script(tvis, tmp_path, monkeypatch):
    monkeypatch.setenv("TVIS_CAPTURES_OFF", "pipeline")  # keep the real worker processes
    pids = tmp_path / "pids"
    pids.mkdir()
    out = tmp_path / "out.txt"
    with open(out, "w") as f:  # a file, not a pipe: waiting must not depend on the pipe's end
        rc = subprocess.call([tvis, "run", "--steps", "2", "--out", str(tmp_path / "runs"),
                              str(SCRIPTS / "real_workers_stop.py"), str(pids)],
                             stdout=f, stderr=subprocess.STDOUT, timeout=300)
    text = out.read_text()
    assert rc == 0, text
    assert "step 1 loss" in text and "step 2 loss" not in text
    workers = [int(f.read_text()) for f in sorted(pids.iterdir())]
    assert len(workers) == 2
    assert [pid for pid in workers if _alive(pid)] == []
