"""`pip install --no-build-isolation -e .` into a venv made from the system
Python with --system-site-packages builds the recorder against that torch and
puts `tvis` on the venv's PATH; `tvis run` then uses the venv's interpreter.
The CMake build is kept in build/pip-<abi>/, so a rerun is incremental."""
import json
import os
import subprocess

from conftest import PYTHON, ROOT, SCRIPTS, load_run, run_file_of


def test_editable_install_in_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", "-e", str(ROOT)],
                         capture_output=True, text=True, timeout=1800)
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    tvis = venv / "bin" / "tvis"
    assert tvis.exists()
    env = dict(os.environ, PATH="%s:%s" % (venv / "bin", os.environ.get("PATH", "")))
    p = subprocess.run(["tvis", "run", "--steps", "1", "--out", str(tmp_path / "runs"), str(SCRIPTS / "semantics.py")],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout.splitlines()[0])
    assert info["prefix"] == str(venv)
    assert load_run(run_file_of(p.stdout)).complete
    # a plain python of the venv does not load tvis
    q = subprocess.run([str(venv / "bin" / "python"), "-c", "import sys; print('tvis' in sys.modules)"],
                       capture_output=True, text=True)
    assert q.stdout.strip() == "False"
