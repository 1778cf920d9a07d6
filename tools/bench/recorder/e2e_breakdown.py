"""Where the end-to-end time of `tvis run --steps N` goes, against the plain script.

    /usr/bin/python3 tools/bench/recorder/e2e_breakdown.py [--build DIR] [--case resnet18] [--steps 3]
                                                           [--variant full|core|no-NAME] [--repeats 3]

Runs the case plain (`python SCRIPT`, stopped by itself after N steps) and
recorded, each --repeats times interleaved, and prints the median of each
phase. The recorded phases come from the timeline the session writes to
TVIS_STATS_FILE (unix times, same clock as this script's), the plain ones and
the step boundaries from the flushed `step k` lines the script prints:

  launch -> runner       `tvis run` up to tvis._runner's first line: Python
                         startup, and before it the interpreter probes unless
                         the runner was started early (--go-fd)
  imports, probes        a runner started early: its imports (torch, native
                         module) while `tvis run` probes, until its run file
                         arrives (then the two imports below are ~0)
  import _tvis_native    loading the native module (and libtorch with it)
  import session+torch   `tvis.session.session` (torch's Python side) and the Recorder
  install                capture extensions imported and hooks installed
  script to step 0 end   the script's own imports and setup, then step 0
  steps 1..N-1           the remaining recorded steps
  to stop                from step N-1's end to the stop at step N's first call
  finalize extensions    the captures' finalize
  finalize run file      draining the writer backlog, footer, trailer, fsync
  exit                   os._exit and `tvis run` printing the run's path
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (cases, build discovery, variants)


def stamped_run(cmd, env=None):
    """Runs cmd; returns (launch unix time, [unix time of each `step` line], exit unix time, stdout)."""
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, bufsize=1)
    steps, lines = [], []
    for line in p.stdout:
        lines.append(line)
        if line.startswith("step "):
            steps.append(time.time())
    err = p.stderr.read()
    p.wait()
    t1 = time.time()
    if p.returncode != 0:
        sys.exit("e2e_breakdown: %s failed (%d):\n%s" % (" ".join(map(str, cmd)), p.returncode, err))
    return t0, steps, t1, "".join(lines)


def plain_phases(cmd, steps):
    t0, st, t1, _ = stamped_run(cmd)
    return {"script to step 0 end": st[0] - t0, "steps 1..N-1": st[steps - 1] - st[0],
            "exit": t1 - st[steps - 1], "total": t1 - t0}


def recorded_phases(cmd, env, stats_file, steps):
    t0, st, t1, _ = stamped_run(cmd, env)
    tl = dict(json.loads(Path(stats_file).read_text())["timeline"])
    last = tl["step_%d_end" % (steps - 1)]
    return {
        "launch -> runner": tl["runner_started"] - t0,
        "imports, probes": tl.get("run_file_received", tl["runner_started"]) - tl["runner_started"],
        "import _tvis_native": tl["native_imported"] - tl["imports_begin"],
        "import session+torch": tl["session_created"] - tl["native_imported"],
        "install": tl["installed"] - tl["session_created"],
        "script to step 0 end": tl["step_0_end"] - tl["installed"],
        "steps 1..N-1": last - tl["step_0_end"],
        "to stop": tl["finalize_begin"] - last,
        "finalize extensions": tl["extensions_finalized"] - tl["finalize_begin"],
        "finalize run file": tl["run_file_closed"] - tl["extensions_finalized"],
        "exit": t1 - tl["run_file_closed"],
        "total": t1 - t0,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build")
    ap.add_argument("--case", default="resnet18", choices=sorted(bench.CASES))
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--variant", default="full")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    tvis = str(bench.find_build(args.build, bench.PYTHON) / "bin" / "tvis")
    script, argsfor = bench.CASES[args.case]
    plain, rec = [], []
    with tempfile.TemporaryDirectory(prefix="tvis-e2e-") as out:
        stats = os.path.join(out, "stats.json")
        env = dict(os.environ, TVIS_CAPTURES_OFF=bench.variant_env(args.variant), TVIS_STATS_FILE=stats)
        for _ in range(args.repeats):
            plain.append(plain_phases([bench.PYTHON, str(script)] + argsfor(args.steps), args.steps))
            rec.append(recorded_phases([tvis, "run", "--out", out, "--steps", str(args.steps), str(script)]
                                       + argsfor(args.steps + 5), env, stats, args.steps))
    med = lambda rows, k: statistics.median(r[k] for r in rows) if k in rows[0] else None  # noqa: E731
    print("%s %s, --steps %d, medians of %d runs (seconds)" % (args.case, args.variant, args.steps, args.repeats))
    print("%-22s %8s %8s" % ("phase", "plain", "tvis run"))
    for k in rec[0]:
        p = med(plain, k)
        print("%-22s %8s %8.3f" % (k, "" if p is None else "%.3f" % p, med(rec, k)))
    print("e2e ratio (medians of totals): %.2fx" % (med(rec, "total") / med(plain, "total")))
    print(json.dumps({"plain": plain, "recorded": rec}))


if __name__ == "__main__":
    main()
