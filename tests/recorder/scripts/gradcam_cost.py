"""What Grad-CAM costs per recorded step (a measurement, not a test).

    /usr/bin/python3 tests/recorder/scripts/gradcam_cost.py [--build build/native] [--steps 6] [--repeats 3]

For ResNet-18 (tools/bench/recorder/resnet18_cpu.py: batch 32 of 3x32x32, CPU)
and examples/digits_cnn.py, runs `tvis run --steps N` with Grad-CAM on, with
TVIS_CAPTURES_OFF=gradcam and with --no-gradcam (the other captures stay on in
all three), and prints per mode: the median step time (interval between
consecutive `step k` lines, step 0 excluded; median over repeats), the CPU
seconds of the whole run (user + system, tvis and its Python; steadier than
wall time on a shared machine) and its peak RSS, the run
file's bytes per step (compressed, and raw: all chunks uncompressed), and the
Grad-CAM records and map values (bytes) in the run. Then, in a process of its
own, the time Grad-CAM's on_backward itself takes per step (wall and CPU),
with the default passes (one per (sample, class) on CPU; batched against the
loop: tools/bench/recorder/gradcam_passes.py).
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
    _, status, usage = os.wait4(p.pid, 0)  # the run's CPU time and peak RSS (tvis and its Python child)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0 or path is None:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err))
    return (statistics.median(b - a for a, b in zip(stamps, stamps[1:])), usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss, path)


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


def time_on_backward(case, steps, run_file, batch_bytes):
    """In this process: the script under a Session, Grad-CAM's on_backward timed
    (wall and process CPU seconds per call); prints one JSON line."""
    import json
    import runpy
    import _tvis_native
    from tvis.captures.gradcam import maps as _gradcam_maps
    from tvis.session.session import Session
    if batch_bytes is not None:
        _gradcam_maps.BATCH_BYTES = batch_bytes
    script, argsfor = CASES[case]
    sys.path.insert(0, str(script.parent))
    session = Session(_tvis_native, run_file, {"steps": 10 ** 6, "project_dir": str(script.parent)}, str(script))
    session.install()
    hooks = session.bus._by_hook["on_backward"]
    calls = []
    for i, (name, fn) in enumerate(hooks):
        if name == "gradcam":
            def timed(loss, info, fn=fn):
                w, c = time.perf_counter(), time.process_time()
                fn(loss, info)
                calls.append((time.perf_counter() - w, time.process_time() - c))
            hooks[i] = (name, timed)
    sys.argv = [str(script)] + argsfor(steps - 2)
    runpy.run_path(str(script), run_name="__main__")
    session.finalize()
    later = calls[1:]  # the first call includes one-time costs
    print(json.dumps({"calls": len(calls), "wall_ms": 1e3 * statistics.median(w for w, _ in later),
                      "cpu_ms": 1e3 * statistics.median(c for _, c in later)}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build" / "native"))
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-on-backward", metavar="CASE", help=argparse.SUPPRESS)
    ap.add_argument("--run-file", help=argparse.SUPPRESS)
    ap.add_argument("--batch-bytes", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    # the package `tvis run` uses: $TVIS_PYTHON_PACKAGE_DIR as for the CLI, else this checkout's
    sys.path[:0] = [str(Path(args.build) / "python"),
                    os.environ.get("TVIS_PYTHON_PACKAGE_DIR") or str(ROOT / "recorder" / "python")]
    if args.time_on_backward:
        return time_on_backward(args.time_on_backward, args.steps, args.run_file, args.batch_bytes)
    tvis = str(Path(args.build) / "bin" / "tvis")
    with tempfile.TemporaryDirectory(prefix="tvis-gradcam-cost-") as tmp:
        for case, (script, argsfor) in CASES.items():
            times, cpu, rss = {m: [] for m in MODES}, {m: [] for m in MODES}, {m: [] for m in MODES}
            last = {}
            for r in range(args.repeats):
                for mode, (opts, env) in MODES.items():  # interleaved: the machine is shared
                    out = Path(tmp) / case / mode.replace("=", "_") / str(r)
                    t, c, m, path = run_once(tvis, script, argsfor(args.steps), args.steps, opts, env, out)
                    times[mode].append(t)
                    cpu[mode].append(c)
                    rss[mode].append(m)
                    last[mode] = path
            for mode in MODES:
                size = os.path.getsize(last[mode])
                records, map_bytes, raw = gradcam_bytes(last[mode])
                print("%-10s %-21s step %7.1f ms (runs: %s) | CPU %6.2f s/run | peak RSS %5.0f MB | "
                      "file %8.1f KB/step, raw %8.1f KB/step | gradcam %3d records/step, map values %6.1f KB/step"
                      % (case, mode, statistics.median(times[mode]) * 1e3,
                         " ".join("%.0f" % (t * 1e3) for t in times[mode]), statistics.median(cpu[mode]),
                         statistics.median(rss[mode]) / 1e3, size / 1e3 / args.steps,
                         raw / 1e3 / args.steps, records / args.steps, map_bytes / 1e3 / args.steps), flush=True)
            for label, extra in (("default passes (batched on CUDA only)", []),):
                p = subprocess.run([sys.executable, __file__, "--build", args.build, "--steps", str(args.steps),
                                    "--time-on-backward", case, "--run-file", str(Path(tmp) / (case + "_timed.tvis"))]
                                   + extra, capture_output=True, text=True, cwd=tmp)
                if p.returncode != 0:
                    sys.exit("in-process timing failed:\n" + p.stderr)
                print("%-10s Grad-CAM on_backward alone, %s (in process, median of later steps): %s"
                      % (case, label, p.stdout.strip().splitlines()[-1]), flush=True)


if __name__ == "__main__":
    main()
