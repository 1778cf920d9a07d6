"""`pip install -e .` the way the ecosystem does it: build isolation on (pip
fetches the pinned setuptools from the package index), into a plain virtual
environment whose torch is the project's newest (build/venv's packages, seen
through a .pth file, as any environment with torch installed sees it). The
recorder must be built against that torch, though pip hides the
environment's packages from the build. The CMake build is kept in
build/pip-<abi>/, so a rerun is incremental.

The laptop install (no torch, no compiler) is the wheel tools/wheel
makes, tested in tests/e2e/test_laptop_wheel.sh."""
import fcntl
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, ROOT, SCRIPTS, load_run, run_file_of


def site_packages_of(python):
    return subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()


# a fresh clone compiles the module and the CLI here, possibly after waiting for tools/wheel's build
@pytest.mark.timeout(1800)
def test_editable_install_with_build_isolation(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    vpy = str(venv / "bin" / "python")
    # the environment has torch: the suite's (build/venv's) packages
    Path(site_packages_of(vpy), "suite_torch.pth").write_text(site_packages_of(PYTHON) + "\n")
    torch_version = subprocess.run([vpy, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                                   text=True, check=True).stdout.strip()
    # build isolation is pip's default: nothing here turns it off or the index away. setuptools
    # builds in the source tree (build/, the egg-info folder): one such build at a time, under the
    # lock tools/wheel takes too (tools/test runs suites side by side)
    with open(ROOT / "build" / ".setuptools.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        pip = subprocess.run([vpy, "-m", "pip", "install", "--disable-pip-version-check", "-e", str(ROOT)],
                             capture_output=True, text=True, timeout=1800)
    out = pip.stdout + pip.stderr
    assert pip.returncode == 0, out[-4000:]
    assert "Installing build dependencies" in out, out[-2000:]  # isolation: setuptools came from the index
    built_for = (ROOT / "recorder" / "python" / "_tvis_native.torch").read_text()
    assert torch_version.split("+")[0] in built_for, (built_for, torch_version)
    tvis = venv / "bin" / "tvis"
    assert tvis.exists()
    env = dict(os.environ, PATH="%s:%s" % (venv / "bin", os.environ.get("PATH", "")))
    for k in ("TVIS_PYTHON", "TVIS_BIN", "TVIS_NATIVE_DIRS", "PYTHONPATH"):
        env.pop(k, None)  # the venv's console script names its own interpreter and module (a suite may set others)
    p = subprocess.run(["tvis", "run", "--steps", "1", "--out", str(tmp_path / "runs"), str(SCRIPTS / "semantics.py")],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout.splitlines()[0])
    assert info["prefix"] == str(venv)
    run = load_run(run_file_of(p.stdout))
    assert run.complete
    assert run.meta["torch_version"].split("+")[0] == torch_version.split("+")[0], run.meta
    # a plain python of the venv does not load tvis
    q = subprocess.run([vpy, "-c", "import sys; print('tvis' in sys.modules)"], capture_output=True, text=True)
    assert q.stdout.strip() == "False"
