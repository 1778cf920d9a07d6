"""What Grad-CAM costs per recorded step (a measurement, not a test).

    /usr/bin/python3 tests/recorder/scripts/gradcam_cost.py [--build build/native] [--steps 6] [--repeats 3]

For ResNet-18 (tools/bench/recorder/resnet18_cpu.py: batch 32 of 3x32x32, CPU)
and examples/digits_cnn.py, runs `tvis run --steps N` with Grad-CAM on, with
TVIS_CAPTURES_OFF=gradcam and with --no-gradcam (the other captures stay on in
all three), and prints per mode: the median step time (interval between
consecutive `step k` lines, step 0 excluded; median over repeats), the run
file's bytes per step (compressed, and raw: all chunks uncompressed), and the
Grad-CAM records and map values (bytes) in the run.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CASES = {
    "resnet18": (ROOT / "tools" / "bench" / "recorder" / "resnet18_cpu.py", lambda n: ["--steps", str(n + 2)]),
    "digits_cnn": (ROOT / "examples" / "digits_cnn.py", lambda n: ["--epochs", "5", "--max-steps", str(n + 2)]),
}
MODES = {"gradcam": ([], {}), "CAPTURES_OFF=gradcam": ([], {"TVIS_CAPTURES_OFF": "gradcam"}),
         "--no-gradcam": (["--no-gradcam"], {})}


def run_once(tvis, script, args, steps, opts, env, out):
    cmd = [tvis, "run", "--steps", str(steps), "--out", str(out)] + opts + [str(script)] + args
    stamps = []
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                         env=dict(os.environ, **env))
    path = None
    for line in p.stdout:
        if line.startswith("step "):
            stamps.append(time.perf_counter())
        if line.startswith("tvis run: recorded "):
            path = line.split(" ", 3)[3].strip()
    err = p.stderr.read()
    if p.wait() != 0 or path is None:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err))
    return statistics.median(b - a for a, b in zip(stamps, stamps[1:])), path


def gradcam_bytes(path):
    from tvis._read import _json, load
    run = load(path)
    maps, records = set(), 0
    for ordinal, kind, *_ in run.chunks:
        if kind == "insights":
            for g in _json(run.file.chunk_json(ordinal)).get("body", {}).get("gradcam", []):
                records += 1
                maps.add(g.get("map", 0))
    raw = sum(c[5] for c in run.chunks)  # uncompressed chunk bytes (the file's size varies with zstd)
    return records, sum(run.tensors[m]["data_size"] for m in maps), raw


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build" / "native"))
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    sys.path[:0] = [str(Path(args.build) / "python"), str(ROOT / "recorder" / "python")]
    tvis = str(Path(args.build) / "bin" / "tvis")
    with tempfile.TemporaryDirectory(prefix="tvis-gradcam-cost-") as tmp:
        for case, (script, argsfor) in CASES.items():
            times = {m: [] for m in MODES}
            last = {}
            for r in range(args.repeats):
                for mode, (opts, env) in MODES.items():  # interleaved: the machine is shared
                    out = Path(tmp) / case / mode.replace("=", "_") / str(r)
                    t, path = run_once(tvis, script, argsfor(args.steps), args.steps, opts, env, out)
                    times[mode].append(t)
                    last[mode] = path
            for mode in MODES:
                size = os.path.getsize(last[mode])
                records, map_bytes, raw = gradcam_bytes(last[mode])
                print("%-10s %-21s step %7.1f ms (runs: %s) | file %8.1f KB/step, raw %8.1f KB/step | "
                      "gradcam %3d records/step, map values %6.1f KB/step"
                      % (case, mode, statistics.median(times[mode]) * 1e3,
                         " ".join("%.0f" % (t * 1e3) for t in times[mode]), size / 1e3 / args.steps,
                         raw / 1e3 / args.steps, records / args.steps, map_bytes / 1e3 / args.steps), flush=True)


if __name__ == "__main__":
    main()
