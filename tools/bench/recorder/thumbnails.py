"""What a tensor past the byte budget costs the training thread, in one process.

    build/venv/bin/python tools/bench/recorder/thumbnails.py [--build DIR] [--reps 5]

A tensor that `--max-run-bytes` refuses keeps its statistics and a 32 x 32
block-mean thumbnail (recorder/include/tvis/recorder/adaptive_block_means.h). For
float32 CPU tensors shaped like a conv layer's weight, a transformer's
MLP weight and GPT-2's embedding table, prints the best of --reps times of:
  record   Recorder.tensor() under a 1-byte budget: statistics + thumbnail,
           what the training thread pays per refused tensor;
  pooling  torch's adaptive_avg_pool2d of the same [1, 1, rows, cols] view
           to 32 x 32 (the baseline: what the thumbnail cost before it was
           the recorder's own pass);
each in ns per value, and record / pooling.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SHAPES = [(512, 4608), (3072, 768), (50257, 768)]


def best_of(reps, fn):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build" / "native"), help="a build folder with python/_tvis_native")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "recorder" / "python"))
    import torch
    from tvis import native
    mod = native.load([str(Path(args.build) / "python"), str(ROOT / "build" / "native-torch1" / "python")])
    print("thumbnails: torch %s, %d threads" % (torch.__version__, torch.get_num_threads()))
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory(prefix="tvis-thumbnails-") as d:
        rec = mod.Recorder(str(Path(d) / "run.tvis"), {"project_dir": d, "max_run_bytes": 1, "steps": 1})
        for shape in SHAPES:
            t = torch.randn(*shape)
            grid = t.reshape(1, 1, shape[0], -1)
            rec.tensor(t, 4, -1, "w")  # warm-up
            record_s = best_of(args.reps, lambda: rec.tensor(t, 4, -1, "w"))
            pool_s = best_of(args.reps, lambda: torch.nn.functional.adaptive_avg_pool2d(grid, (32, 32)))
            ns = 1e9 / t.numel()
            print("%-14s record %6.2f ms (%.2f ns/value)  pooling %6.2f ms (%.2f ns/value)  record/pooling %.2fx" % (
                "x".join(map(str, shape)), record_s * 1e3, record_s * ns, pool_s * 1e3, pool_s * ns, record_s / pool_s))
        rec.finalize({"script": "thumbnails.py"})


if __name__ == "__main__":
    main()
