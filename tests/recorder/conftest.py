"""Fixtures for the recorder tests (real PyTorch, real torchvision).

The build under test: $TVIS_BUILD_DIR, else build/native (what tools/bootstrap
builds); never guessed from file times, so a leftover build/pip-* or another
build folder cannot shadow it. The header of pytest's output names it.
Scripts run with $TVIS_TEST_PYTHON, else build/venv/bin/python (the
project's newest torch), and pytest itself runs under the same interpreter
(tools/test runs the suites once so and once with Debian's /usr/bin/python3,
the oldest torch). The native module is the build's folder made for this
interpreter's torch (NATIVE_PY: build/native/python or
build/native-torch1/python, chosen by tvis/native.py), and `tvis run` picks
the same one.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "scripts"
PYTHON = os.environ.get("TVIS_TEST_PYTHON") or str(ROOT / "build" / "venv" / "bin" / "python")


BUILD_DIR = Path(os.environ.get("TVIS_BUILD_DIR") or ROOT / "build" / "native").resolve()


def _usable(d):
    return any((d / "python").glob("_tvis_native*.so")) and (d / "bin" / "tvis").exists()


BUILD = BUILD_DIR if _usable(BUILD_DIR) else None
NATIVE_PY = None
if BUILD is not None:
    sys.path.insert(0, str(ROOT / "recorder" / "python"))
    import torch  # noqa: E402
    import tvis.native  # noqa: E402
    _folders = os.environ.get("TVIS_NATIVE_DIRS") or os.pathsep.join(
        [str(BUILD / "python"), str(ROOT / "build" / "native-torch1" / "python")])
    os.environ["TVIS_NATIVE_DIRS"] = _folders
    # the build's module for this torch, before any copy a pip -e install left beside the package
    NATIVE_PY = Path(tvis.native.choose(_folders.split(os.pathsep), torch.__version__))
    tvis.native.load([str(NATIVE_PY)])


def pytest_report_header(config):
    import torch
    return "tvis build under test: %s%s; python %s (torch %s); native module %s" % (
        BUILD_DIR, "" if BUILD else " (not built: bin/tvis or the module missing)", PYTHON, torch.__version__,
        NATIVE_PY)


@pytest.fixture(scope="session")
def build():
    if BUILD is None:
        pytest.fail("%s has no bin/tvis and python/_tvis_native*.so (run tools/bootstrap, or set "
                    "TVIS_BUILD_DIR to a build of targets tvis and _tvis_native)" % BUILD_DIR)
    return BUILD


@pytest.fixture(scope="session")
def generated(build):
    """The generated schema module beside the native module in use (_tvis_schema)."""
    import tvis.native
    return tvis.native.generated()


@pytest.fixture
def native(build):
    """The native module itself (_tvis_native)."""
    import _tvis_native
    return _tvis_native


@pytest.fixture(scope="session")
def tvis(build):
    return str(build / "bin" / "tvis")


def run_plain(script, *args, cwd=None, timeout=600):
    return subprocess.run([PYTHON, str(script), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def run_tvis(tvis_bin, script, *args, steps=3, out=None, opts=(), cwd=None, timeout=600, failures_expected=()):
    """``tvis run --steps STEPS [--out OUT] OPTS SCRIPT ARGS``. When it
    recorded a run, also asserts that tvis reported no failure of its own
    while recording (assert_no_capture_failures; a test that provokes one
    names the notice codes it expects in ``failures_expected``)."""
    cmd = [tvis_bin, "run", "--steps", str(steps)]
    if out is not None:
        cmd += ["--out", str(out)]
    cmd += list(opts) + [str(script), *map(str, args)]
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    path = _recorded_path(p.stdout)
    if path and os.path.exists(path):
        assert_no_capture_failures(path, failures_expected)
    return p


def record_matching_plain(tvis_bin, script, steps, out, *args, failures_expected=()):
    """Runs ``script --steps STEPS ARGS`` plainly and under ``tvis run --steps
    STEPS`` (the script asked for more steps, so tvis is what stops it),
    asserts both succeed with the same step lines, bit for bit, and that no
    capture failed (assert_no_capture_failures; a test that provokes one names
    its notice code in ``failures_expected``), and returns the recorded run's
    path, tvis run's stdout and the plain run's stdout."""
    plain = run_plain(script, "--steps", steps, *args)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis_bin, script, "--steps", steps + 2, *args, steps=steps, out=out,
                   failures_expected=failures_expected)
    assert rec.returncode == 0, rec.stderr
    assert len(step_lines(plain.stdout)) > 0
    assert step_lines(rec.stdout) == step_lines(plain.stdout), "training differs under tvis run"
    return run_file_of(rec.stdout), rec.stdout, plain.stdout


def failure_notices(path):
    """The run's notices that report a failure of tvis itself: a capture
    switched off or a pass skipped after an error (codes ``*_failed``), or a
    recorder error (``recorder_error``). As (code, message) pairs."""
    meta = load_run(path).meta or {}
    return [(n["code"], n.get("message", "")) for n in meta.get("notices", [])
            if n.get("code", "").endswith("_failed") or n.get("code") == "recorder_error"]


def assert_no_capture_failures(path, expected=()):
    """Fails when the run reports a failure of tvis (failure_notices) other
    than the codes in ``expected``: a capture that raised is switched off
    with a notice, and training still matches, so only this check sees it."""
    unexpected = [(c, m) for c, m in failure_notices(path) if c not in expected]
    assert not unexpected, "tvis reported failures while recording: %s" % unexpected


def step_lines(stdout):
    return [l for l in stdout.splitlines() if l.startswith("step ")]


def _recorded_path(stdout):
    """The run.tvis path `tvis run` printed, or None."""
    m = re.search(r"^tvis run: recorded (.+)$", stdout, re.M)
    return m.group(1) if m else None


def run_file_of(stdout):
    path = _recorded_path(stdout)
    assert path, "no run path printed:\n" + stdout
    return path


def inspect_json(tvis_bin, path):
    p = subprocess.run([tvis_bin, "inspect", "--json", str(path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def load_run(path):
    from tvis._read import load
    return load(path)


def torchrun(python=PYTHON):
    """A one-node torchrun of 2 processes on a free port (static rendezvous,
    as `tvis run --nproc-per-node` starts it; torch 1.13's --standalone
    always takes port 29400), each rank's output prefixed `[defaultK]:`."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return [python, "-m", "torch.distributed.run", "--nnodes", "1", "--master_addr", "127.0.0.1", "--master_port",
            str(port), "--nproc_per_node", "2", "--redirects", "1", "--tee", "1"]


# What torch alone prints when its own teardown aborts a rank: gloo's or the
# store's thread destroyed while joinable ("terminate called without an
# active exception"), reported by torchrun/accelerate as SIGABRT and by
# torch.multiprocessing.spawn as "terminated with signal SIGABRT". Seen about
# once in 25 plain 2-rank launches on a loaded 2-core machine, no tvis involved.
TORCH_TEARDOWN_ABORT = ("terminate called without an active exception", "SIGABRT")


def launch_ranks(cmd, cwd, attempts=4, signatures=TORCH_TEARDOWN_ABORT):
    """Runs a multi-rank launch that involves no tvis (a plain baseline) and
    returns the CompletedProcess; launched again, up to `attempts` times in all,
    when torch's own teardown aborted a rank (one of `signatures` in its
    stderr). Any other failure fails at once."""
    for _ in range(attempts):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd)
        if p.returncode == 0 or not any(s in p.stderr for s in signatures):
            break
    assert p.returncode == 0, p.stderr[-3000:]
    return p


def rank_lines(stdout):
    """{rank: [the `step ...` lines it printed]} from torchrun's prefixed output."""
    out = {}
    for m in re.finditer(r"^\[default(\d+)\]:(step .*)$", stdout, re.M):
        out.setdefault(int(m.group(1)), []).append(m.group(2))
    return out
