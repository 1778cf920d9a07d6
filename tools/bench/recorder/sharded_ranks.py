"""What recording costs each rank of a sharded launch, against its DDP twin.

    build/venv/bin/python tools/bench/recorder/sharded_ranks.py [--build DIR] [--steps N] [--width W] [--hidden H]

Launches tests/loops/scripts/sharded_train.py on 2 ranks (gloo, CPU) as
--mode fsdp2 (two fully_shard blocks and the root, AdamW) and --mode ddp (the
same model under DistributedDataParallel), each plainly (torchrun) and under
`tvis run --nproc-per-node 2`, and prints per mode and rank:
  - bytes a step: the rank file's size / steps, and the raw bytes of its
    parameter records (Weight, Grad, Update) a step: a rank of the FSDP2 run
    keeps its shard's share (about 1/2 of the DDP rank's on 2 ranks);
  - the step ratio: median recorded step time / median plain step time
    (steps after the first; the step's wall time as the script measures it,
    forward to optimizer step).
Then the FSDP2/DDP ratio of each figure. Nothing runs across ranks for the
recording: the ratios are the hooks', copies' and writer's cost alone.
"""
import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "tests" / "loops" / "scripts" / "sharded_train.py"
PARAM_ROLES = ("Weight", "Grad", "Update")


def torchrun(python):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return [python, "-m", "torch.distributed.run", "--nnodes", "1", "--master_addr", "127.0.0.1", "--master_port",
            str(port), "--nproc_per_node", "2", "--redirects", "1", "--tee", "1"]


def step_times(stdout):
    """{rank: [step seconds]} from the `time k S` lines."""
    out = {}
    for m in re.finditer(r"^\[default(\d+)\]:time (\d+) (\S+)$", stdout, re.M):
        out.setdefault(int(m.group(1)), []).append(float(m.group(3)))
    return out


def run(cmd, cwd):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=900)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-3000:]))
    return p.stdout


def param_bytes(path, steps):
    from tvis._read import load
    r = load(path)
    return sum(t["data_size"] for t in r.tensors.values() if t["role"] in PARAM_ROLES) / steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build" / "native"))
    ap.add_argument("--python", default=str(ROOT / "build" / "venv" / "bin" / "python"))
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=1024)
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT / "recorder" / "python"))
    import tvis.native
    tvis.native.load([str(Path(a.build) / "python")])
    tvis_bin = str(Path(a.build) / "bin" / "tvis")
    args = ["--steps", str(a.steps), "--width", str(a.width), "--hidden", str(a.hidden), "--time"]
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("fsdp2", "ddp"):
            plain = step_times(run(torchrun(a.python) + [str(SCRIPT), "--mode", mode, *args], tmp))
            out = Path(tmp) / ("runs_" + mode)
            rec_out = run([tvis_bin, "run", "--nproc-per-node", "2", "--steps", str(a.steps), "--out", str(out),
                           str(SCRIPT), "--mode", mode, *args], tmp)
            recorded = step_times(rec_out)
            folder = next(p for p in out.iterdir() if not p.name.startswith("."))  # (.launch-*: the claim)
            for rank in (0, 1):
                f = folder / ("run.tvis" if rank == 0 else "rank%d.tvis" % rank)
                ratio = statistics.median(recorded[rank][1:]) / statistics.median(plain[rank][1:])
                figures[(mode, rank)] = (os.path.getsize(f) / a.steps, param_bytes(f, a.steps), ratio)
    params = 2 * (2 * a.width * a.hidden + a.hidden + a.width) + 4 * a.width + 4
    print("sharded_ranks: 2 ranks, gloo CPU, %d steps, model of %d parameters (width %d, hidden %d)"
          % (a.steps, params, a.width, a.hidden))
    print("%-6s %4s %14s %18s %12s" % ("mode", "rank", "file B/step", "param recs B/step", "step ratio"))
    for (mode, rank), (file_b, param_b, ratio) in sorted(figures.items()):
        print("%-6s %4d %14.0f %18.0f %12.2f" % (mode, rank, file_b, param_b, ratio))
    for rank in (0, 1):
        f, d = figures[("fsdp2", rank)], figures[("ddp", rank)]
        print("rank %d fsdp2/ddp: file bytes %.2f, parameter record bytes %.2f, step ratio %.2f vs %.2f"
              % (rank, f[0] / d[0], f[1] / d[1], f[2], d[2]))


if __name__ == "__main__":
    main()
