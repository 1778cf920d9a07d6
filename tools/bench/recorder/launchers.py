"""Lightning's own launcher (devices=2, strategy="ddp", gloo on the CPU)
plainly and under a plain `tvis run` (both ranks recorded by child_ranks.py),
and the cost of the cross-rank checks when the rank files are read together.

    build/venv/bin/python tools/bench/recorder/launchers.py [--steps N] [--width W] [--tvis BIN]

Prints, per rank, the median step time (steps 1..N-1, the first warms up)
plain and recorded and their ratio; then `tvis diagnose --json` of the run
folder (rank 0 with rank 1 beside it: the cross-rank checks) against rank
1's file alone (one file, no cross-rank check): elapsed ms and bytes read.
Training adds no collective for the cross-rank facts: they are computed
when the files are read."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = r'''
import sys, time
import lightning as L
import torch
import torch.nn.functional as F

W = int(sys.argv[2])

class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(64, W), torch.nn.ReLU(), torch.nn.Linear(W, W),
                                       torch.nn.ReLU(), torch.nn.Linear(W, 10))
    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.net(x), y)
    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)

class Clock(L.Callback):
    def on_train_batch_start(self, trainer, *a):
        self.t = time.perf_counter()
    def on_train_batch_end(self, trainer, *a):
        sys.stdout.write("rank %d step %d ms %.3f\n" % (trainer.global_rank, trainer.global_step - 1,
                                                          1e3 * (time.perf_counter() - self.t)))
        sys.stdout.flush()

if __name__ == "__main__":
    L.seed_everything(0, verbose=False)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(4096, 64, generator=g), torch.randint(0, 10, (4096,), generator=g)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=128)
    trainer = L.Trainer(max_steps=int(sys.argv[1]), accelerator="cpu", devices=2, strategy="ddp", logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        callbacks=[Clock()])
    trainer.fit(Net(), loader)
'''


def step_ms(stdout):
    out = {}
    for m in re.finditer(r"^rank (\d+) step (\d+) ms ([\d.]+)$", stdout, re.M):
        if int(m.group(2)) > 0:
            out.setdefault(int(m.group(1)), []).append(float(m.group(3)))
    return {r: statistics.median(v) for r, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--tvis", default=str(ROOT / "build" / "native" / "bin" / "tvis"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "lightning_ddp_bench.py"
        script.write_text(SCRIPT)
        args = [str(script), str(a.steps), str(a.width)]
        p = subprocess.run([sys.executable] + args, capture_output=True, text=True, cwd=tmp, timeout=600)
        assert p.returncode == 0, p.stderr[-2000:]
        plain = step_ms(p.stdout)
        r = subprocess.run([a.tvis, "run", "--steps", str(a.steps), "--out", str(Path(tmp) / "runs")] + args,
                           capture_output=True, text=True, cwd=tmp, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
        rec = step_ms(r.stdout)
        files = sorted(set(re.findall(r"tvis run: recorded (\S+)$", r.stdout, re.M)))
        print("lightning ddp, 2 ranks, MLP width %d, %d steps (median of steps 1..%d)" % (a.width, a.steps,
                                                                                         a.steps - 1))
        for rank in sorted(plain):
            print("  rank %d: plain %.1f ms/step, recorded %.1f ms/step, ratio %.2fx" % (
                rank, plain[rank], rec.get(rank, float("nan")), rec.get(rank, float("nan")) / plain[rank]))
        print("  recorded files: %s" % ", ".join(os.path.basename(f) for f in files))
        folder = os.path.dirname(files[0])

        def diagnose(path):
            """The fastest of 5 `tvis diagnose --json PATH`: its report, with the command's wall ms."""
            best = None
            for _ in range(5):
                t = time.perf_counter()
                d = subprocess.run([a.tvis, "diagnose", "--json", path], capture_output=True, text=True, timeout=300)
                rep = dict(json.loads(d.stdout), wall_ms=1e3 * (time.perf_counter() - t))
                if best is None or rep["wall_ms"] < best["wall_ms"]:
                    best = rep
            return best

        together, alone = diagnose(folder), diagnose(os.path.join(folder, "rank1.tvis"))
        for what, rep in (("rank files together (cross-rank checks)", together), ("rank 1 alone", alone)):
            print("  diagnose, %s: %.1f ms wall, read %.1f ms, %d bytes" % (what, rep["wall_ms"], rep["read"]["ms"],
                                                                            rep["read"]["bytes"]))
        print("  cross-rank: %.2fx one rank's diagnosis (wall); collectives added to training: 0" % (
            together["wall_ms"] / alone["wall_ms"]))


if __name__ == "__main__":
    main()
