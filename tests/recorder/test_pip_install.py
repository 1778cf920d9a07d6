"""`pip install --no-build-isolation -e .` into a venv made from the system
Python with --system-site-packages builds the recorder against that torch and
puts `tvis` on the venv's PATH; `tvis run` then uses the venv's interpreter.
The CMake build is kept in build/pip-<abi>/, so a rerun is incremental.

These installs use Debian's interpreter (SYSTEM_PYTHON, with Debian's
setuptools and wheel and torch 1.13), whatever interpreter runs the suite:
pip's --no-build-isolation needs its build tools in the environment."""
import json
import os
import subprocess
from pathlib import Path

from conftest import ROOT, SCRIPTS, load_run, run_file_of

SYSTEM_PYTHON = "/usr/bin/python3"


def test_editable_install_in_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", "-e", str(ROOT)],
                         capture_output=True, text=True, timeout=1800)
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    tvis = venv / "bin" / "tvis"
    assert tvis.exists()
    env = dict(os.environ, PATH="%s:%s" % (venv / "bin", os.environ.get("PATH", "")))
    env.pop("TVIS_PYTHON", None)  # the venv's console script names its own interpreter (a suite may set another)
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


def test_install_without_torch(tmp_path):
    """A laptop that only views runs: a fresh venv without torch (no system
    site packages; Debian's wheel is made importable alone, as pip needs it),
    a regular install of a copy of the tree. `tvis` has open, agent, target
    and inspect; `tvis run` says recording needs torch; the viewer files come
    with the package when built (TVIS_WEB_DIR or build/web)."""
    import shutil
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, symlinks=True,
                    ignore=shutil.ignore_patterns("build", "node_modules", ".git", "__pycache__", "_tvis_native*.so",
                                                  "_build_info.py", "web"))
    (src / "build").mkdir()
    (src / "build" / "third_party").symlink_to(ROOT / "build" / "third_party")
    venv = tmp_path / "venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    assert subprocess.run([str(py), "-c", "import torch"], capture_output=True).returncode != 0
    only = tmp_path / "wheel_only"
    only.mkdir()
    pkg_dir = Path(subprocess.run([SYSTEM_PYTHON, "-c", "import wheel; print(wheel.__file__)"], capture_output=True,
                                  text=True, check=True).stdout.strip()).parent  # Debian's python3-wheel
    (only / "wheel").symlink_to(pkg_dir)
    for meta in list(pkg_dir.parent.glob("wheel-*.egg-info")) + list(pkg_dir.parent.glob("wheel-*.dist-info")):
        (only / meta.name).symlink_to(meta)  # its entry points name bdist_wheel
    site = subprocess.run([str(py), "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True,
                          text=True, check=True).stdout.strip()
    (Path(site) / "wheel_only.pth").write_text(str(only) + "\n")
    # the copy has no build/web: name the tree's built viewer, as a packager would
    env = dict(os.environ, TVIS_PIP_BUILD_DIR=str(tmp_path / "build"),
               TVIS_WEB_DIR=os.environ.get("TVIS_WEB_DIR") or str(ROOT / "build" / "web"))
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", str(src)],
                         capture_output=True, text=True, timeout=1800, env=env, cwd=str(tmp_path))
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    tvis = str(venv / "bin" / "tvis")
    run = subprocess.run([tvis, "run", "x.py"], capture_output=True, text=True)
    assert run.returncode == 2
    assert "recording needs torch" in run.stderr
    golden = ROOT / "tests" / "data" / "golden_v1.tvis"
    assert subprocess.run([tvis, "inspect", str(golden)], capture_output=True).returncode == 0
    for cmd in (["open", "--help"], ["agent", "--help"], ["target", "list"]):
        p = subprocess.run([tvis, *cmd], capture_output=True, text=True, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
        assert p.returncode == 0, (cmd, p.stderr)
    imp = subprocess.run([str(py), "-c", "import _tvis_native"], capture_output=True, text=True)
    assert "needs torch" in imp.stderr
    web = os.environ.get("TVIS_WEB_DIR") or str(ROOT / "build" / "web")
    # tools/test builds the viewer before this suite; only a recorder-only
    # checkout outside CI may lack it
    assert os.path.isfile(os.path.join(web, "viewer.html")) or not os.environ.get("CI"), "no built viewer in " + web
    if os.path.isfile(os.path.join(web, "viewer.html")):
        pkg = subprocess.run([str(py), "-c", "import tvis, os; print(os.path.dirname(tvis.__file__))"], capture_output=True,
                             text=True, check=True).stdout.strip()
        assert sorted(os.listdir(os.path.join(pkg, "web"))) == ["viewer.html", "viewer.js", "viewer.wasm"]
        serves_from_install(tvis, os.path.join(pkg, "web"), golden, tmp_path)


def serves_from_install(tvis, web, run_file, tmp_path):
    """`tvis open` of the installed package (no TVIS_WEB_DIR) serves the
    viewer installed with it, the run list and the run's bytes; Ctrl-C stops it."""
    import shutil
    import signal
    import urllib.request
    runs = tmp_path / "served" / "20260101-120000_golden_aaaaaa"
    runs.mkdir(parents=True)
    shutil.copy(run_file, runs / "run.tvis")
    env = {k: v for k, v in os.environ.items() if k != "TVIS_WEB_DIR"}
    p = subprocess.Popen([tvis, "open", "--no-browser", str(runs.parent)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        url = p.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and "?token=" in url, (url, p.stderr.read() if p.poll() is not None else "")
        base, token = url.split("/?token=")
        page = urllib.request.urlopen("%s/viewer.html?token=%s" % (base, token), timeout=30).read()
        assert page == open(os.path.join(web, "viewer.html"), "rb").read()
        listed = json.loads(urllib.request.urlopen("%s/api/runs?token=%s" % (base, token), timeout=30).read())
        assert [r["name"] for r in listed] == [runs.name]
        head = urllib.request.urlopen(urllib.request.Request("%s/run/%s/run.tvis?token=%s" % (base, runs.name, token),
                                                             headers={"Range": "bytes=0-15"}), timeout=30).read()
        assert head == open(run_file, "rb").read(16)
    finally:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert "with the viewer in %s" % os.path.realpath(web) in err and "tvis open: stopped" in err, err
