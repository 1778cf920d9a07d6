"""The models record_cost.py records: a ResNet-50 (torchvision's when it is
installed, else the same architecture defined here) on batch 64 of 224x224
random images, and a GPT-2-shaped 124M LM (12 layers, d=768, 12 heads, vocab
50257, block 1024, batch 8 x 1024) on random tokens; AdamW, CUDA.

    python cost_models.py --model resnet50|gpt2 [--steps N] [--small]

--small (record_cost.py --cpu): the same code at sizes the CPU runs in
seconds (ResNet-50 at batch 2 of 64x64; GPT: 2 layers, d=64, vocab 512,
batch 2 x 32). TVIS_GPU_CHECK_CPU=1 runs on the CPU.

Each step prints `step k loss L` (repr, compared bit for bit), `timing k MS`
(the GPU synchronized at both ends) and `memory k BYTES`
(torch.cuda.max_memory_allocated() so far; 0 on the CPU).

On CUDA, torch.cuda.set_sync_debug_mode("warn") is on from the first step:
every implicit device synchronization (the script's own loss.item() and
whatever the recorder does) prints torch's "synchronizing CUDA operation"
warning on stderr, which record_cost.py counts (run with
PYTHONWARNINGS=always so that Python repeats them). TVIS_COST_PROFILE=PATH:
the last step runs under torch.profiler and its Chrome trace is written to
PATH (record_cost.py measures the copy stream's overlap from it).
"""
import argparse
import os
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "recorder"))
from gpt_random import GPT  # noqa: E402: the bench's GPT-shaped LM, on any device


def on_cpu():
    return os.environ.get("TVIS_GPU_CHECK_CPU") == "1"


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * 4
        self.conv1, self.bn1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
        self.conv3, self.bn3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return self.relu(y + (x if self.downsample is None else self.downsample(x)))


def resnet50_here(classes=1000):
    """torchvision's resnet50 architecture (layers 3, 4, 6, 3), for a machine without torchvision."""
    layers, cin = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                   nn.MaxPool2d(3, 2, 1)], 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


def resnet50():
    try:
        import torchvision
        return torchvision.models.resnet50(), "torchvision"
    except ImportError:
        return resnet50_here(), "defined here"


GPT_SIZES = {False: dict(layers=12, d=768, heads=12, vocab=50257, block=1024, batch=8),
             True: dict(layers=2, d=64, heads=4, vocab=512, block=32, batch=2)}


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", choices=["resnet50", "gpt2"], required=True)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--small", action="store_true")
    p.add_argument("--profile-step", type=int, default=-1, help="the step TVIS_COST_PROFILE profiles")
    args = p.parse_args()
    dev = torch.device("cpu" if on_cpu() else "cuda")
    torch.manual_seed(0)
    if args.model == "resnet50":
        model, origin = resnet50()
        batch, side, classes = (2, 64, 1000) if args.small else (64, 224, 1000)
        print("model resnet50 (%s), batch %d x 3 x %d x %d" % (origin, batch, side, side), flush=True)
        data = lambda: (torch.randn(batch, 3, side, side, device=dev), torch.randint(0, classes, (batch,), device=dev))
    else:
        s = GPT_SIZES[args.small]
        model = GPT(s["layers"], s["d"], s["heads"], s["vocab"], s["block"])
        print("model gpt2-shaped, %d layers d=%d vocab %d, batch %d x %d" % (
            s["layers"], s["d"], s["vocab"], s["batch"], s["block"]), flush=True)

        def data():
            x = torch.randint(0, s["vocab"], (s["batch"], s["block"] + 1), device=dev)
            return x[:, :-1], x[:, 1:]
    model = model.to(dev)
    print("parameters %d" % sum(p.numel() for p in model.parameters()), flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    if dev.type == "cuda":
        torch.cuda.set_sync_debug_mode("warn")
    trace = os.environ.get("TVIS_COST_PROFILE")
    for step in range(args.steps):
        x, y = data()
        sync(dev)
        prof = None
        if trace and step == args.profile_step:
            acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA]
                                                            if dev.type == "cuda" else [])
            prof = torch.profiler.profile(activities=acts)
            prof.__enter__()
        t0 = time.perf_counter()
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sync(dev)
        ms = (time.perf_counter() - t0) * 1e3
        if prof is not None:
            prof.__exit__(None, None, None)
            prof.export_chrome_trace(trace)
        peak = torch.cuda.max_memory_allocated(dev) if dev.type == "cuda" else 0
        print("step %d loss %r" % (step, loss.item()), flush=True)
        print("timing %d %.3f" % (step, ms), flush=True)
        print("memory %d %d" % (step, peak), flush=True)


if __name__ == "__main__":
    main()
