"""The pipeline capture's copy budget: to observe the pipeline, workers run in
the main process on deep copies of the dataset, one per worker, where forked
workers would share it. A dataset in memory whose copies would exceed the
budget (150 MB with 4 workers: +600 MB) keeps the real workers, with a
notice saying why.
"""
import re

from conftest import SCRIPTS, inspect_json, record_matching_plain


def _rss(stdout):
    return max(int(m) for m in re.findall(r"^rss_mb (\d+)$", stdout, re.M))


def test_big_in_memory_dataset_is_not_copied_per_worker(tvis, tmp_path):
    script = SCRIPTS / "pipeline_big_dataset_workers.py"
    path, out, plain_out = record_matching_plain(tvis, script, 2, tmp_path / "runs")
    js = inspect_json(tvis, path)
    why = [n for n in js["notices"] if "MB of arrays for each of its 4 workers" in n]
    assert why, js["notices"]
    # the dataset (~150 MB) was not copied 4 times into the main process
    assert _rss(out) < _rss(plain_out) + 300, (_rss(plain_out), _rss(out))
