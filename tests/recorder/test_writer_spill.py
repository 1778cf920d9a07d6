"""The writer's spill path (format/include/tvis/format/run_writer.h): past its
in-memory bound the raw chunks go to a spill file beside the run and are
compressed later; the finished run is the same self-contained run.tvis.

TVIS_WRITER_BACKLOG_BYTES=0 forces every chunk through the spill file. The
same script recorded with and without it gives the same records and the same
kept values, training matches the plain run bit for bit, and the run's
folder holds run.tvis alone once recording ends.
"""
import json
import os
import subprocess

import torch

from conftest import SCRIPTS, load_run, run_file_of, run_plain, step_lines

_TIMES = ("t_begin_ns", "t_end_ns", "own_ns", "own_before_ns")


def _record(tvis, out, stats, env):
    cmd = [tvis, "run", "--steps", "3", "--out", str(out), str(SCRIPTS / "lm_adamw.py"), "--steps", "5"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, TVIS_STATS_FILE=str(stats), **env))


def test_spilled_run_equals_the_run_kept_in_memory(tvis, tmp_path):
    plain = run_plain(SCRIPTS / "lm_adamw.py", "--steps", 3)
    assert plain.returncode == 0, plain.stderr
    runs = {}
    for key, env in (("memory", {}), ("spill", {"TVIS_WRITER_BACKLOG_BYTES": "0"})):
        out = tmp_path / key
        p = _record(tvis, out, tmp_path / (key + ".json"), env)
        assert p.returncode == 0, p.stderr
        assert step_lines(p.stdout) == step_lines(plain.stdout), "training differs under tvis run (%s)" % key
        path = run_file_of(p.stdout)
        stats = json.loads((tmp_path / (key + ".json")).read_text())
        # the run's folder: the run file alone (the spill file never outlives the writer)
        left = sorted(os.listdir(os.path.dirname(path)))
        assert not [n for n in left if "spill" in n], left
        runs[key] = (load_run(path), stats)
    memory, mstats = runs["memory"]
    spilled, sstats = runs["spill"]
    assert mstats["writer_spilled_chunks"] == 0
    assert sstats["writer_spilled_chunks"] == sstats["chunks"]  # every chunk (the footer is not one)
    assert sstats["writer_spilled_bytes"] > 1_000_000
    assert sstats["peak_backlog_bytes"] <= mstats["peak_backlog_bytes"]
    assert spilled.complete and spilled.meta["complete"] and spilled.meta["steps_recorded"] == 3
    assert set(spilled.tensors) == set(memory.tensors)
    kept = 0
    for tid, a in memory.tensors.items():
        b = spilled.tensors[tid]
        for k in ("role", "event", "name", "shape", "dtype", "kept", "step", "slot"):
            assert a.get(k) == b.get(k), (tid, k)
        va, vb = memory.values(tid), spilled.values(tid)
        assert (va is None) == (vb is None), tid
        if va is not None:
            assert torch.equal(va, vb), (tid, a.get("name"))
            kept += 1
    assert kept > 100
    strip = lambda e: {k: v for k, v in e.items() if k not in _TIMES}  # noqa: E731
    assert [strip(e) for _, e in sorted(spilled.events.items()) if e["kind"] == "ModuleCall"] == \
        [strip(e) for _, e in sorted(memory.events.items()) if e["kind"] == "ModuleCall"]
