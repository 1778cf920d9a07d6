"""Recorder benchmark: each case plain and recorded, in one command.

    build/venv/bin/python tools/bench/recorder/bench.py [--python PY] [--build DIR] [--torch1-build DIR]
        [--cases a,b] [--steps 3] [--timing-steps 6]

--python: the interpreter both the plain and the recorded runs use (default
build/venv/bin/python, the newest torch; /usr/bin/python3 measures Debian's
torch 1.13 with the same build, whose module for it is build/native-torch1's).

Per case:
  step ratio   median time of recorded steps / the same steps run plain. A
               step's time is the interval between consecutive `step k` lines
               the script prints (flushed), so step 0 (warm-up) is excluded;
               measured with --timing-steps recorded steps.
  e2e ratio    wall time of `tvis run --steps N SCRIPT` (which stops the
               script as step N+1 begins) / `python SCRIPT` stopped by itself
               after N steps (same arguments otherwise); medians of --repeats
               interleaved runs.
  cpu ratio    the same medians in CPU time (/proc schedstat) instead of wall
               time: `main` is the training thread alone, `all` every thread
               (the writer's included). Steadier than wall time on a shared
               machine; `wait` is the recorded step's median run-queue wait.
  bytes/step   run file size / N;  run size;  compression = raw bytes of all
               chunks / bytes of their compressed payloads; then where they go,
               a table by record kind and phase (byte_table.py).
  backlog      the writer's peak queue of raw bytes not yet compressed.
  RSS growth   peak RSS of the recorded process - peak RSS of the plain one.

Variants (--variants): `core` turns every capture extension off
(TVIS_CAPTURES_OFF; the issue-3 recorder alone), `core-stats` is `core` with
a 1-byte value budget (`--max-run-bytes 1`: every tensor's statistics,
histogram and thumbnail, no kept values: what the kept copies cost is
`core` less `core-stats`), `full` is `tvis run`'s
default, `no-NAME` turns one capture off (e.g. no-gradcam), `eval-values` is
the default with `tvis run --eval-values` (evaluation passes keep values).
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

import byte_table

ROOT = Path(__file__).resolve().parents[3]
PYTHON = str(ROOT / "build" / "venv" / "bin" / "python")  # --python
TORCH1_BUILD = str(ROOT / "build" / "native-torch1")  # --torch1-build
HERE = Path(__file__).resolve().parent

CASES = {
    "resnet18": (HERE / "resnet18_cpu.py", lambda n: ["--steps", str(n)]),
    "digits_cnn": (ROOT / "examples" / "digits_cnn.py", lambda n: ["--epochs", "5", "--max-steps", str(n)]),
    "char_transformer": (ROOT / "examples" / "char_transformer.py", lambda n: ["--steps", str(n)]),
    # nanoGPT's loop: 40 evaluation forwards under no_grad before iterations 0 and 2
    "gpt_eval": (ROOT / "tests" / "recorder" / "scripts" / "gpt_eval_passes.py", lambda n: ["--steps", str(n)]),
    # GPT-shaped LMs on random tokens: 13.4M and 110.3M parameters (the scale case)
    "gpt13m": (HERE / "gpt_random.py", lambda n: ["--size", "13m", "--steps", str(n)]),
    "gpt100m": (HERE / "gpt_random.py", lambda n: ["--size", "100m", "--steps", str(n)]),
    # 12 layers, 12 heads, 1,024 tokens through F.scaled_dot_product_attention: attention rebuilt from q, k
    # (compare --variants full,no-attention)
    "gpt_attn1k": (HERE / "gpt_random.py", lambda n: ["--size", "attn1k", "--steps", str(n)]),
    # the per-call microbenchmark: 401 tiny module calls a step (per_call.py measures it in one process)
    "tiny_calls": (HERE / "tiny_calls.py", lambda n: ["--steps", str(n)]),
}
DEFAULT_CASES = "resnet18,digits_cnn,char_transformer,gpt_eval"


def native_dirs(tvis):
    """The module folders of the build whose bin/tvis is `tvis` and of --torch1-build: the recorded runs and
    this process load the module of those builds made for the interpreter's torch."""
    return [str(Path(tvis).parents[1] / "python"), str(Path(TORCH1_BUILD) / "python")]


def built_for(build):
    """The interpreter a build's recorder module was configured for (its CMakeCache's TVIS_PYTHON), or None."""
    try:
        for line in (build / "CMakeCache.txt").read_text(errors="replace").splitlines():
            if line.startswith("TVIS_PYTHON:"):
                return line.split("=", 1)[1]
    except OSError:
        pass
    return None


def find_build(arg, python=None):
    """--build, else the newest build under build/ with bin/tvis and a recorder module, preferring those
    configured for `python` (a build for another torch cannot record with it)."""
    if arg:
        return Path(arg)
    found = [(m.stat().st_mtime, m.parents[1]) for m in (ROOT / "build").glob("*/python/_tvis_native*.so")
             if (m.parents[1] / "bin" / "tvis").exists()]
    if not found:
        sys.exit("bench: no build with bin/tvis and python/_tvis_native under build/")
    same = lambda a, b: a is not None and b is not None and os.path.abspath(a) == os.path.abspath(b)  # a venv links its python
    matching = [f for f in found if same(built_for(f[1]), python)]
    return max(matching or found)[1]


def capture_names():
    """The captures `tvis run` attaches (tvis.captures.CAPTURES; importing it loads no torch)."""
    if str(ROOT / "recorder" / "python") not in sys.path:
        sys.path.insert(0, str(ROOT / "recorder" / "python"))
    from tvis.captures import names
    return sorted(names())


def variant_env(variant):
    """TVIS_CAPTURES_OFF for a variant name (see the module doc)."""
    if variant in ("full", "eval-values"):
        return ""
    if variant in ("core", "core-stats"):
        return ",".join(capture_names())
    if variant.startswith("no-"):
        return variant[3:]
    sys.exit("bench: unknown variant %r (core, core-stats, full, eval-values, no-NAME)" % variant)


def python_pid(pid):
    """The Python process doing the work: `pid` itself, or the child `tvis run` forked."""
    try:
        kids = Path("/proc/%d/task/%d/children" % (pid, pid)).read_text().split()
    except OSError:
        return pid
    return int(kids[0]) if kids else pid


def cpu_ns(pid):
    """(CPU ns of the main thread, CPU ns of all live threads, run-queue wait ns of the main thread)."""
    def sched(path):
        try:
            f = Path(path).read_text().split()
            return int(f[0]), int(f[1])
        except (OSError, IndexError, ValueError):
            return 0, 0
    main, wait = sched("/proc/%d/task/%d/schedstat" % (pid, pid))
    total = 0
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            total += sched("/proc/%d/task/%s/schedstat" % (pid, t))[0]
    except OSError:
        pass
    return main, total, wait


def timed_run(cmd, env=None):
    """Runs cmd; returns (wall seconds, [(time, main cpu ns, all cpu ns, wait ns) at each 'step' line], stdout)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, bufsize=1)
    stamps, lines, worker = [], [], None
    for line in p.stdout:
        lines.append(line)
        if line.startswith("step "):
            worker = worker or python_pid(p.pid)
            stamps.append((time.perf_counter(),) + cpu_ns(worker))
    err = p.stderr.read()
    p.wait()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d):\n%s" % (" ".join(map(str, cmd)), p.returncode, err))
    return wall, stamps, "".join(lines)


def step_times(stamps, field=0, scale=1.0):
    return [(b[field] - a[field]) * scale for a, b in zip(stamps, stamps[1:])]


def maxrss_of(cmd):
    """Peak RSS (KB) of `python SCRIPT ARGS` run plain, reported by the process itself."""
    probe = ("import atexit, resource, runpy, sys\n"
             "atexit.register(lambda: sys.stderr.write('MAXRSS %d\\n' % "
             "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
             "sys.argv = sys.argv[1:]\n"
             "sys.path[0] = __import__('os').path.dirname(sys.argv[0])\n"
             "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    p = subprocess.run([cmd[0], "-c", probe] + cmd[1:], capture_output=True, text=True, check=True)
    return int(p.stderr.strip().splitlines()[-1].split()[1])


def bench_case(name, tvis, steps, timing_steps, out_dir, repeats, level=1, variant="full"):
    script, argsfor = CASES[name]
    plain_cmd = [PYTHON, str(script)]
    rec_cmd = [tvis, "run", "--python", PYTHON, "--out", str(out_dir)] + \
        (["--eval-values"] if variant == "eval-values" else []) + \
        (["--max-run-bytes", "1"] if variant == "core-stats" else [])
    r = {"case": name, "variant": variant}
    rec_env = dict(os.environ, TVIS_ZSTD_LEVEL=str(level), TVIS_CAPTURES_OFF=variant_env(variant),
                   TVIS_NATIVE_DIRS=os.pathsep.join(native_dirs(tvis)))
    # per-step times
    _, plain_st, _ = timed_run(plain_cmd + argsfor(timing_steps))
    _, rec_st, _ = timed_run(rec_cmd + ["--steps", str(timing_steps), str(script)] + argsfor(timing_steps + 5),
                             env=rec_env)
    p_med, r_med = statistics.median(step_times(plain_st)), statistics.median(step_times(rec_st))
    r["plain_step_ms"], r["recorded_step_ms"], r["step_ratio"] = p_med * 1e3, r_med * 1e3, r_med / p_med
    for field, key in ((1, "main"), (2, "all")):
        pc, rc = (statistics.median(step_times(st, field, 1e-6)) for st in (plain_st, rec_st))
        r["plain_%s_cpu_ms" % key], r["recorded_%s_cpu_ms" % key], r["%s_cpu_ratio" % key] = pc, rc, rc / max(pc, 1e-9)
    r["recorded_wait_ms"] = statistics.median(step_times(rec_st, 3, 1e-6))
    # end to end: interleaved repeats, medians (the machine may be shared)
    stats_file = Path(out_dir) / ("stats_%s.json" % name)
    env = dict(rec_env, TVIS_STATS_FILE=str(stats_file))
    plain_walls, rec_walls = [], []
    for _ in range(repeats):
        plain_walls.append(timed_run(plain_cmd + argsfor(steps))[0])
        wall, _, out = timed_run(rec_cmd + ["--steps", str(steps), str(script)] + argsfor(steps + 5), env=env)
        rec_walls.append(wall)
    plain_wall, rec_wall = statistics.median(plain_walls), statistics.median(rec_walls)
    r["plain_wall_s"], r["recorded_wall_s"], r["e2e_ratio"] = plain_wall, rec_wall, rec_wall / plain_wall
    run_path = [l.split(" ", 3)[3] for l in out.splitlines() if l.startswith("tvis run: recorded ")][0]
    size = os.path.getsize(run_path)
    sys.path.insert(0, str(ROOT / "recorder" / "python"))
    from tvis import native as native_modules  # (`tvis` here is the CLI's path)
    native = native_modules.load(native_dirs(tvis))
    from tvis import _read
    r["byte_table"] = byte_table.format_table(byte_table.rows_of(_read.load(run_path)), steps)
    chunks = native.RunFile(run_path).chunks()
    raw = sum(c[5] for c in chunks)
    comp = sum(c[4] for c in chunks)
    st = json.loads(stats_file.read_text())
    r.update(run_mb=size / 1e6, mb_per_step=size / 1e6 / steps, compression=raw / max(comp, 1),
             raw_mb=raw / 1e6, peak_backlog_mb=st["peak_backlog_bytes"] / 1e6,
             compress_s=st["compress_seconds"], tensors=st["tensors"], events=st["events"])
    plain_rss = maxrss_of(plain_cmd + argsfor(steps))
    r["rss_growth_mb"] = (st["maxrss_kb"] - plain_rss) / 1e3
    return r


def main():
    global PYTHON, TORCH1_BUILD
    ap = argparse.ArgumentParser()
    ap.add_argument("--build")
    ap.add_argument("--python", default=PYTHON, help="the interpreter of the plain and recorded runs")
    ap.add_argument("--torch1-build", default=TORCH1_BUILD,
                    help="the build of the module for torch 1.x (default build/native-torch1)")
    ap.add_argument("--cases", default=DEFAULT_CASES, help="comma-separated, of: " + ",".join(CASES))
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--timing-steps", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=3, help="end-to-end runs of each kind (median)")
    ap.add_argument("--zstd-levels", default="1", help="comma-separated writer zstd levels to compare")
    ap.add_argument("--variants", default="core,full", help="comma-separated: core, core-stats, full, eval-values, no-NAME (module doc)")
    args = ap.parse_args()
    PYTHON, TORCH1_BUILD = args.python, args.torch1_build
    tvis = str(find_build(args.build, PYTHON) / "bin" / "tvis")
    torch_version = subprocess.run([PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                                   text=True, check=True).stdout.strip()
    print("bench: %s (torch %s), %s" % (PYTHON, torch_version, tvis), flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="tvis-bench-") as out_dir:
        for name, variant, level in [(n, v, int(l)) for n in args.cases.split(",") for v in args.variants.split(",")
                                     for l in args.zstd_levels.split(",")]:
            r = bench_case(name, tvis, args.steps, args.timing_steps, out_dir, args.repeats, level, variant)
            r["zstd_level"] = level
            rows.append(r)
            print("%-17s %-5s zstd %2d | step %6.1f ms plain %7.1f ms recorded  ratio %5.2fx | "
                  "cpu main %5.0f/%5.0f ms %5.2fx all %5.0f/%5.0f ms %5.2fx (wait %4.0f ms) | e2e %5.1f s vs %5.1f s ratio %5.2fx | "
                  "%6.1f MB/step run %6.1f MB raw %6.1f MB compression %4.2fx | backlog peak %5.1f MB, "
                  "zstd %4.1f s | RSS +%5.0f MB" % (
                      name, variant, level, r["plain_step_ms"], r["recorded_step_ms"], r["step_ratio"],
                      r["recorded_main_cpu_ms"], r["plain_main_cpu_ms"], r["main_cpu_ratio"],
                      r["recorded_all_cpu_ms"], r["plain_all_cpu_ms"], r["all_cpu_ratio"], r["recorded_wait_ms"], r["plain_wall_s"],
                      r["recorded_wall_s"], r["e2e_ratio"], r["mb_per_step"], r["run_mb"], r["raw_mb"],
                      r["compression"], r["peak_backlog_mb"], r["compress_s"], r["rss_growth_mb"]), flush=True)
            print(r["byte_table"], flush=True)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
