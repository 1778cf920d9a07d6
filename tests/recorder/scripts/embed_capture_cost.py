"""What the attention and embeddings captures cost on top of the core recorder.

    /usr/bin/python3 tests/recorder/scripts/embed_capture_cost.py [--steps 6] [--build build/native]

For examples/char_transformer.py and tools/bench/recorder/resnet18_cpu.py:
  1. in process: the script recorded with a Session whose attention/embeddings
     hooks (and the softmax capture path) are timed -> ms per step in each
     (step 0, which holds one-time work such as the vocabulary search, apart),
     and the raw bytes of the tensors and insight chunks they add;
  2. `tvis run` with all captures and with TVIS_CAPTURES_OFF=attention,embeddings
     -> run file sizes (compressed bytes added) and end-to-end wall time.
Timings are of a shared machine: read them as orders of magnitude.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CASES = {
    "char_transformer": (ROOT / "examples" / "char_transformer.py", ["--steps", "50"]),
    "resnet18": (ROOT / "tools" / "bench" / "recorder" / "resnet18_cpu.py", ["--steps", "50"]),
}
KINDS = ("attention", "embeddings")


def timed(spent, session, kind, fn):
    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            dt = time.perf_counter() - t
            spent[kind][session.steps_done == 0] += dt
    return wrapper


def in_process(run_file, steps, script, args):
    """Child mode: records `script` in this process, prints a JSON line of costs."""
    import runpy
    import _tvis_native
    from tvis.captures.attention import capture as CA
    from tvis._read import load
    from tvis.session.session import Session
    spent = {k: {False: 0.0, True: 0.0} for k in KINDS}
    project = str(Path(script).resolve().parent)
    session = Session(_tvis_native, run_file, {"steps": steps, "project_dir": project}, script)
    CA.AttentionCapture._consider = timed(spent, session, "attention", CA.AttentionCapture._consider)
    session.install()
    for hooks in session.bus._by_hook.values():
        hooks[:] = [(n, timed(spent, session, n, f) if n in KINDS else f) for n, f in hooks]
    sys.argv = [script] + args
    sys.path.insert(0, project)
    os._exit = lambda code: (_ for _ in ()).throw(SystemExit(code))  # the session stops the script this way
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit:
        pass
    session.finalize()
    run = load(run_file)
    mine = [t for t in run.tensors.values() if t["name"].startswith(("attention", "embedding"))]
    print(json.dumps({k: {"step0_ms": v[True] * 1e3, "later_ms_per_step": v[False] * 1e3 / max(steps - 1, 1)}
                      for k, v in spent.items()} | {
        "tensor_bytes_raw": sum(t["data_size"] for t in mine), "tensors": len(mine),
        "insight_chunk_bytes": sum(c[4] for c in run.chunks if c[1] == "insights")}))


def tvis_run(tvis, steps, script, args, off):
    env = dict(os.environ)
    if off:
        env["TVIS_CAPTURES_OFF"] = "attention,embeddings"
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        p = subprocess.run([tvis, "run", "--steps", str(steps), "--out", d, str(script)] + args, env=env,
                           capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t
        path = [l.split(" ", 3)[3] for l in p.stdout.splitlines() if l.startswith("tvis run: recorded ")][0]
        return wall, os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--build", default=str(ROOT / "build" / "native"))
    ap.add_argument("--child", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.child:
        return in_process(a.child[0], a.steps, a.child[1], a.child[2:])
    tvis = str(Path(a.build) / "bin" / "tvis")
    env = dict(os.environ, PYTHONPATH="%s:%s" % (Path(a.build) / "python", ROOT / "recorder" / "python"))
    for name, (script, args) in CASES.items():
        with tempfile.TemporaryDirectory() as d:
            out = subprocess.run([sys.executable, __file__, "--steps", str(a.steps), "--child",
                                  str(Path(d) / "run.tvis"), str(script)] + args, env=env, cwd=d,
                                 capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        costs = json.loads(out)
        on, off = tvis_run(tvis, a.steps, script, args, False), tvis_run(tvis, a.steps, script, args, True)
        print("%s: attention %.2f ms/step (step 0: %.2f ms), embeddings %.2f ms/step (step 0: %.2f ms); "
              "%d tensors, %.1f KB/step raw + %.1f KB insight chunks; run file %+.1f KB/step compressed "
              "(%.2f MB with, %.2f MB without); tvis run wall %.2f s with, %.2f s without" % (
                  name, costs["attention"]["later_ms_per_step"], costs["attention"]["step0_ms"],
                  costs["embeddings"]["later_ms_per_step"], costs["embeddings"]["step0_ms"], costs["tensors"],
                  costs["tensor_bytes_raw"] / a.steps / 1e3, costs["insight_chunk_bytes"] / 1e3,
                  (on[1] - off[1]) / a.steps / 1e3, on[1] / 1e6, off[1] / 1e6, on[0], off[0]), flush=True)


if __name__ == "__main__":
    main()
