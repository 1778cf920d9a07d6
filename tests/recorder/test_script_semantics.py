"""`tvis run SCRIPT ARGS` runs the script as `python SCRIPT ARGS` would."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import PYTHON, SCRIPTS, inspect_json, load_run, run_file_of, run_plain, run_tvis


def _info(stdout):
    return json.loads(stdout.splitlines()[0])


def test_main_argv_path_pickle_sibling(tvis, tmp_path):
    args = ["--lr", "3e-4", "-h", "--", "x y"]
    plain = run_plain(SCRIPTS / "semantics.py", *args)
    rec = run_tvis(tvis, SCRIPTS / "semantics.py", *args, out=tmp_path)
    assert plain.returncode == 0 and rec.returncode == 0, rec.stderr
    a, b = _info(plain.stdout), _info(rec.stdout)
    assert b == a
    assert b["name"] == "__main__" and b["argv"][1:] == args and b["pickle"] == 7
    assert b["path0"] == str(SCRIPTS) and b["pythonpath"] == os.environ.get("PYTHONPATH", "")
    assert rec.stderr == plain.stderr
    run = load_run(run_file_of(rec.stdout))
    assert run.meta["argv"][1:] == args and run.meta.get("exit_code", 0) == 0
    assert any(n["code"] == "script_ended" for n in run.meta.get("notices", []))


def test_relative_script_and_cwd(tvis, tmp_path):
    rec = run_tvis(tvis, "scripts/semantics.py", "a", out=tmp_path, cwd=SCRIPTS.parent)
    plain = run_plain("scripts/semantics.py", "a", cwd=SCRIPTS.parent)
    assert _info(rec.stdout) == _info(plain.stdout)


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
    p = subprocess.Popen([tvis, "run", "--out", str(tmp_path), str(SCRIPTS / "semantics.py"), "--loop"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    for line in p.stdout:
        if line.strip() == "ready" or time.time() > deadline:
            break
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    assert p.returncode == -signal.SIGTERM
    run = load_run(run_file_of(out))
    assert run.complete and run.meta["exception"] == "signal SIGTERM"
    assert any(e["name"] == "Linear" for e in run.module_events())


def test_killed_run_is_not_complete(tvis, tmp_path):
    p = subprocess.Popen([tvis, "run", "--out", str(tmp_path), str(SCRIPTS / "semantics.py"), "--loop"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    for line in p.stdout:
        if line.strip() == "ready":
            break
    time.sleep(0.3)
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
    p = subprocess.Popen([tvis, "run", "--out", str(tmp_path), str(SCRIPTS / "semantics.py"), "--loop"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    for line in p.stdout:
        if line.strip() == "ready":
            break
    time.sleep(0.3)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == -signal.SIGINT
    assert "KeyboardInterrupt" in err
    run = load_run(run_file_of(out))
    assert run.complete and run.meta["exception"] == "KeyboardInterrupt"
