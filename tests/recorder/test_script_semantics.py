"""`tvis run SCRIPT ARGS` runs the script as `python SCRIPT ARGS` would."""
import json
import os
import selectors
import signal
import subprocess
import time

import pytest

from conftest import PYTHON, SCRIPTS, inspect_json, load_run, run_file_of, run_plain, run_tvis


def _info(stdout):
    return json.loads(stdout.splitlines()[0])


def _same_but_tvis(plain, recorded):
    """The script sees the same interpreter under tvis run, except that the
    tvis package is loaded (the runner imported it; plain python never does)."""
    assert plain.pop("tvis_loaded") is False and recorded.pop("tvis_loaded") is True
    assert recorded == plain


def _start_looping(tvis, tmp_path, script=SCRIPTS / "semantics.py", *args):
    """Starts `tvis run SCRIPT ARGS` (default: semantics.py --loop) in its own process group and
    returns once the script printed "ready" (its module calls were made);
    fails after 120 s, or when the script exits first, instead of hanging."""
    # SIGINT as a terminal's foreground job has it: a suite started in the background inherits it ignored
    p = subprocess.Popen([tvis, "run", "--out", str(tmp_path), str(script), *(args or ("--loop",))],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    fd = p.stdout.fileno()  # read unbuffered: a buffered reader could hold "ready" back from select
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if not sel.select(timeout=max(0.0, deadline - time.monotonic())):
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            out, err = p.communicate(timeout=60)
            pytest.fail("the script ended before printing ready (exit %s): %s" % (p.returncode, err[-2000:]))
        seen += chunk
        if b"ready" in seen.splitlines():
            return p
    os.killpg(p.pid, signal.SIGKILL)
    p.communicate()
    pytest.fail("no 'ready' from the script within 120 s")


def test_main_argv_path_pickle_sibling(tvis, tmp_path):
    args = ["--lr", "3e-4", "-h", "--", "x y"]
    plain = run_plain(SCRIPTS / "semantics.py", *args)
    rec = run_tvis(tvis, SCRIPTS / "semantics.py", *args, out=tmp_path)
    assert plain.returncode == 0 and rec.returncode == 0, rec.stderr
    a, b = _info(plain.stdout), _info(rec.stdout)
    _same_but_tvis(a, b)
    assert b["name"] == "__main__" and b["argv"][1:] == args and b["pickle"] == 7
    assert b["path0"] == str(SCRIPTS) and b["pythonpath"] == os.environ.get("PYTHONPATH", "")
    assert rec.stderr == plain.stderr
    run = load_run(run_file_of(rec.stdout))
    assert run.meta["argv"][1:] == args and run.meta.get("exit_code", 0) == 0
    assert any(n["code"] == "script_ended" for n in run.meta.get("notices", []))


def test_relative_script_and_cwd(tvis, tmp_path):
    rec = run_tvis(tvis, "scripts/semantics.py", "a", out=tmp_path, cwd=SCRIPTS.parent)
    plain = run_plain("scripts/semantics.py", "a", cwd=SCRIPTS.parent)
    assert rec.returncode == 0 and plain.returncode == 0, rec.stderr
    _same_but_tvis(_info(plain.stdout), _info(rec.stdout))


@pytest.mark.parametrize("code", [0, 3, 42])
def test_exit_codes(tvis, tmp_path, code):
    rec = run_tvis(tvis, SCRIPTS / "semantics.py", "--exit", code, out=tmp_path)
    assert rec.returncode == code
    run = load_run(run_file_of(rec.stdout))
    assert run.complete and run.meta.get("exit_code", 0) == code


def test_exception_traceback_is_pythons(tvis, tmp_path):
    plain = run_plain(SCRIPTS / "semantics.py", "--raise")
    rec = run_tvis(tvis, SCRIPTS / "semantics.py", "--raise", out=tmp_path)
    assert plain.returncode == rec.returncode == 1
    assert rec.stderr == plain.stderr
    assert "ValueError: boom from the script" in rec.stderr and "_runner" not in rec.stderr
    path = run_file_of(rec.stdout)
    run = load_run(path)
    assert run.meta["exception"] == "ValueError: boom from the script"
    assert "semantics.py" in run.meta["traceback"]
    assert inspect_json(tvis, path)["exception"]


def test_sigterm_finalizes_and_dies_by_signal(tvis, tmp_path):
    p = _start_looping(tvis, tmp_path)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    assert p.returncode == -signal.SIGTERM
    run = load_run(run_file_of(out))
    assert run.complete and run.meta["exception"] == "signal SIGTERM"
    assert any(e["name"] == "Linear" for e in run.module_events())


def test_killed_run_is_not_complete(tvis, tmp_path):
    p = _start_looping(tvis, tmp_path)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    runs = [d for d in tmp_path.iterdir() if d.is_dir()]
    assert len(runs) == 1
    info = inspect_json(tvis, runs[0])
    assert info["complete"] is False


def test_nothing_auto_loads(tmp_path):
    """A plain `python` never imports tvis (no .pth, no sitecustomize)."""
    p = subprocess.run([PYTHON, "-c", "import sys; print('tvis' in sys.modules, '_tvis_native' in sys.modules)"],
                       capture_output=True, text=True)
    assert p.stdout.strip() == "False False"


def test_sigint_is_keyboard_interrupt_like_python(tvis, tmp_path):
    """Ctrl-C reaches the whole process group: the script gets KeyboardInterrupt,
    the run is finalized with it, and the exit is by SIGINT as with Python."""
    p = _start_looping(tvis, tmp_path)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == -signal.SIGINT
    assert "KeyboardInterrupt" in err
    run = load_run(run_file_of(out))
    assert run.complete and run.meta["exception"] == "KeyboardInterrupt"
