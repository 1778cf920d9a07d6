"""Bad input: one line on stderr naming the problem, a non-zero exit, and
nothing left behind that looks like a complete run."""
import os
import stat
import subprocess

from conftest import SCRIPTS, run_tvis


def _one_line_error(p):
    assert p.returncode != 0
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, p.stderr
    return lines[0]


def _no_runs(folder):
    assert not folder.exists() or not any(folder.rglob("run.tvis")), list(folder.rglob("*"))


def test_missing_script(tvis, tmp_path):
    line = _one_line_error(run_tvis(tvis, tmp_path / "nope.py", out=tmp_path / "runs"))
    assert "nope.py" in line and "not found" in line
    _no_runs(tmp_path / "runs")


def test_syntax_error(tvis, tmp_path):
    line = _one_line_error(run_tvis(tvis, SCRIPTS / "syntax_error.py", out=tmp_path / "runs"))
    assert "syntax" in line.lower() and "syntax_error.py" in line
    _no_runs(tmp_path / "runs")
    assert not any((tmp_path / "runs").iterdir()), "an empty run folder was left"


def test_steps_zero(tvis, tmp_path):
    line = _one_line_error(run_tvis(tvis, SCRIPTS / "semantics.py", steps=0, out=tmp_path / "runs"))
    assert "--steps" in line
    _no_runs(tmp_path / "runs")


def test_unwritable_out(tvis, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    line = _one_line_error(run_tvis(tvis, SCRIPTS / "semantics.py", out=blocker / "runs"))
    assert "runs" in line


def test_python_without_torch(tvis, tmp_path):
    fake = tmp_path / "python3"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    line = _one_line_error(run_tvis(tvis, SCRIPTS / "semantics.py", out=tmp_path / "runs",
                                    opts=["--python", str(fake)]))
    assert "torch" in line and str(fake) in line
    _no_runs(tmp_path / "runs")


def test_python_missing(tvis, tmp_path):
    line = _one_line_error(run_tvis(tvis, SCRIPTS / "semantics.py", out=tmp_path / "runs",
                                    opts=["--python", str(tmp_path / "nopython")]))
    assert "nopython" in line


def test_no_module_built_for_this_torch(tvis, tmp_path):
    """The build's recorder module folders (TVIS_NATIVE_DIRS) hold none made for the interpreter's torch:
    one line naming this torch and each folder's, exit 3, nothing left behind (a module loaded into
    another torch would crash or record wrongly)."""
    other = tmp_path / "native_other"
    other.mkdir()
    (other / "_tvis_native.torch").write_text("0.0.1-not-this-torch\n")
    p = subprocess.run([tvis, "run", "--out", str(tmp_path / "runs"), str(SCRIPTS / "semantics.py")],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, TVIS_NATIVE_DIRS=str(other)))
    assert p.returncode == 3, p.stderr
    line = _one_line_error(p)
    assert "not built for this interpreter's torch" in line and "0.0.1-not-this-torch" in line, line
    assert str(other) in line
    _no_runs(tmp_path / "runs")


def test_python_as_a_relative_path(tvis, tmp_path):
    """``--python`` given relative to the directory tvis was started in (``build/venv/bin/python``)
    names that file, though the interpreter probe and the runner start elsewhere: the run records.
    The path is kept as given, links unresolved (a venv's python is a link out of the venv)."""
    import sys
    rel = os.path.relpath(sys.executable, tmp_path)
    assert "/" in rel and not rel.startswith("/")
    p = run_tvis(tvis, SCRIPTS / "semantics.py", steps=1, out=tmp_path / "runs", opts=["--python", rel],
                 cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert list((tmp_path / "runs").rglob("run.tvis")), p.stdout
