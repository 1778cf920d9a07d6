"""What the device check's training scripts share: their command line, the
weights digest they print after every step, and one timed step.

Each step prints, like tests/recorder/scripts/fidelity_util.py,
    step <k> loss <repr(loss.item())> weights <sha256 of parameters and buffers>
and then `timing <k> <ms>`: the step's wall time, the GPU synchronized at both
ends. TVIS_GPU_CHECK_CPU=1 runs a script on the CPU (gpu_fidelity.py --cpu)."""
import argparse
import hashlib
import os
import time

import torch
import torch.nn.functional as F


def on_cpu():
    return os.environ.get("TVIS_GPU_CHECK_CPU") == "1"


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def digest(model):
    """sha256 of every parameter and buffer (BatchNorm's running statistics too)."""
    h = hashlib.sha256()
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        h.update(name.encode())
        h.update(t.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:32]


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def train_step(step, model, opt, x, y, dev):
    """One timed cross-entropy step, then its two lines."""
    sync(dev)
    t0 = time.perf_counter()
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    sync(dev)
    ms = (time.perf_counter() - t0) * 1e3
    print("step %d loss %r weights %s" % (step, loss.item(), digest(model)), flush=True)
    print("timing %d %.3f" % (step, ms), flush=True)
