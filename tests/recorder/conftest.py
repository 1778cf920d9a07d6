"""Fixtures for the recorder tests (real PyTorch, real torchvision).

The build under test: $TVIS_BUILD_DIR, else the build folder under build/
whose _tvis_native module is newest and that has bin/tvis. Scripts run with
/usr/bin/python3 (the interpreter with torch), or $TVIS_TEST_PYTHON.
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
PYTHON = os.environ.get("TVIS_TEST_PYTHON", "/usr/bin/python3")


def _find_build():
    env = os.environ.get("TVIS_BUILD_DIR")
    candidates = [Path(env).resolve()] if env else [p for p in (ROOT / "build").glob("*") if p.is_dir()]
    found = []
    for d in candidates:
        mods = list((d / "python").glob("_tvis_native*.so"))
        if mods and (d / "bin" / "tvis").exists():
            found.append((mods[0].stat().st_mtime, d))
    return max(found)[1] if found else None


BUILD = _find_build()
if BUILD is not None:
    # the build's native module before any copy a pip -e install left beside the package
    sys.path[:0] = [str(BUILD / "python"), str(ROOT / "recorder" / "python")]


@pytest.fixture(scope="session")
def build():
    if BUILD is None:
        pytest.fail("no build with bin/tvis and python/_tvis_native*.so under build/ "
                    "(configure with /usr/bin/python3 having torch, build targets tvis and _tvis_native)")
    return BUILD


@pytest.fixture(scope="session")
def tvis(build):
    return str(build / "bin" / "tvis")


def run_plain(script, *args, cwd=None, timeout=600):
    return subprocess.run([PYTHON, str(script), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def run_tvis(tvis_bin, script, *args, steps=3, out=None, opts=(), cwd=None, timeout=600):
    cmd = [tvis_bin, "run", "--steps", str(steps)]
    if out is not None:
        cmd += ["--out", str(out)]
    cmd += list(opts) + [str(script), *map(str, args)]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def record_matching_plain(tvis_bin, script, steps, out, *args):
    """Runs ``script --steps STEPS ARGS`` plainly and under ``tvis run --steps
    STEPS`` (the script asked for more steps, so tvis is what stops it),
    asserts both succeed with the same step lines, bit for bit, and returns the
    recorded run's path, tvis run's stdout and the plain run's stdout."""
    plain = run_plain(script, "--steps", steps, *args)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis_bin, script, "--steps", steps + 2, *args, steps=steps, out=out)
    assert rec.returncode == 0, rec.stderr
    assert len(step_lines(plain.stdout)) > 0
    assert step_lines(rec.stdout) == step_lines(plain.stdout), "training differs under tvis run"
    return run_file_of(rec.stdout), rec.stdout, plain.stdout


def step_lines(stdout):
    return [l for l in stdout.splitlines() if l.startswith("step ")]


def run_file_of(stdout):
    m = re.search(r"^tvis run: recorded (.+)$", stdout, re.M)
    assert m, "no run path printed:\n" + stdout
    return m.group(1)


def inspect_json(tvis_bin, path):
    p = subprocess.run([tvis_bin, "inspect", "--json", str(path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def load_run(path):
    from tvis._read import load
    return load(path)
