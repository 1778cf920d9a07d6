"""What the pipeline capture adds to `tvis run`: each case recorded with it
and without it (TVIS_CAPTURES_OFF=pipeline, which also leaves DataLoader
workers to their real processes), interleaved, medians of --repeats runs.

    /usr/bin/python3 tests/recorder/scripts/pipeline_cost.py [--build build/native] [--repeats 3]

Prints per case and variant: wall time of `tvis run --steps 3`, CPU time of
the recorded process tree that was waited for (real worker processes killed
at the stop are not counted), run file bytes and event count.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CASES = {
    "digits_cnn (0 workers)": [ROOT / "examples" / "digits_cnn.py", "--max-steps", "4"],
    "pipeline_workers (2 workers)": [ROOT / "tests" / "recorder" / "scripts" / "pipeline_workers.py",
                                     "--steps", "4", "--workers", "2"],
}


def one(tvis, cmd, off, out):
    env = dict(os.environ)
    if off:
        env["TVIS_CAPTURES_OFF"] = "pipeline"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.time()
    p = subprocess.run([tvis, "run", "--steps", "3", "--out", out] + [str(c) for c in cmd], env=env,
                       capture_output=True, text=True)
    wall = time.time() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [l for l in p.stdout.splitlines() if l.startswith("tvis run: recorded ")]
    if p.returncode != 0 or not lines:
        raise SystemExit("tvis run failed:\n" + p.stdout[-2000:] + p.stderr[-2000:])
    path = lines[0].split(" ", 3)[3]
    info = json.loads(subprocess.run([tvis, "inspect", "--json", path], capture_output=True, text=True).stdout)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, os.path.getsize(path), info["events"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build" / "native"))
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    tvis = str(Path(a.build) / "bin" / "tvis")
    with tempfile.TemporaryDirectory() as out:
        for name, cmd in CASES.items():
            res = {False: [], True: []}
            for _ in range(a.repeats):
                for off in (False, True):
                    res[off].append(one(tvis, cmd, off, out))
            for off in (False, True):
                wall, cpu, size, events = zip(*res[off])
                print("%-30s pipeline %-3s  wall %5.2f s  cpu %5.2f s  run %9d bytes  events %4d"
                      % (name, "off" if off else "on", statistics.median(wall), statistics.median(cpu),
                         statistics.median(size), events[0]))


if __name__ == "__main__":
    main()
