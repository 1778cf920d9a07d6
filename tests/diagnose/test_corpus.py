"""`tvis diagnose` held to its bar on the corpus subset (tools/bench/diagnose/):
every bug class of the subset named at its step and parameter, and no
warning or error on any healthy program of it (the bug programs' twins
included). The subset covers every bug class and every optimizer family of
the whole corpus; the whole corpus is the bench (`score.py` without
--subset)."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "tools" / "bench" / "diagnose"
PYTHON = os.environ.get("TVIS_TEST_PYTHON", str(ROOT / "build" / "venv" / "bin" / "python"))
sys.path.insert(0, str(BENCH))

import score  # noqa: E402


def test_the_subset_covers_every_bug_class_and_optimizer_family():
    entries = score.load_corpus()
    bugs = [e for e in entries if e["kind"] == "bug"]
    healthy = [e for e in entries if e["kind"] == "healthy" and "twin_of" not in e]
    assert len(healthy) >= 30 and len(bugs) >= 15, (len(healthy), len(bugs))
    subset = [e for e in entries if e.get("subset")]
    # a bug class is the kind an entry expects first
    assert {e["expect"][0] for e in bugs} == {e["expect"][0] for e in subset if e["kind"] == "bug"}
    assert {e["family"] for e in entries} == {e["family"] for e in subset}


def test_diagnose_meets_its_bar_on_the_corpus_subset(tmp_path):
    p = subprocess.run([PYTHON, str(BENCH / "score.py"), "--subset", "--jobs", "2", "--python", PYTHON,
                        "--keep", str(tmp_path / "runs")],
                       capture_output=True, text=True, timeout=1800)
    print(p.stdout)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    assert "diagnose corpus:" in p.stdout
