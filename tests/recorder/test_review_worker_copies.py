"""Review finding: to observe the pipeline, workers run in the main process on
deep copies of the dataset, one per worker. A dataset held in memory was
copied num_workers times (forked workers share it): +600 MB for a 150 MB
dataset with 4 workers, under `tvis run` only. Beyond a budget the real
workers now run, with a notice saying why.
"""
import re

from conftest import SCRIPTS, inspect_json, run_file_of, run_plain, run_tvis, step_lines


def _rss(stdout):
    return max(int(m) for m in re.findall(r"^rss_mb (\d+)$", stdout, re.M))


def test_big_in_memory_dataset_is_not_copied_per_worker(tvis, tmp_path):
    script = SCRIPTS / "review_big_dataset_workers.py"
    plain = run_plain(script, "--steps", 2)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, "--steps", 4, steps=2, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout)
    js = inspect_json(tvis, run_file_of(rec.stdout))
    why = [n for n in js["notices"] if "MB of arrays for each of its 4 workers" in n]
    assert why, js["notices"]
    # the dataset (~150 MB) was not copied 4 times into the main process
    assert _rss(rec.stdout) < _rss(plain.stdout) + 300, (_rss(plain.stdout), _rss(rec.stdout))
