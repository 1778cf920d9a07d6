"""Mixed precision on the CPU: autocast(bfloat16) with a GradScaler and AdamW.

Mirrors the torch.amp recipe (written for CUDA, run here on the CPU):
the forward and loss under torch.autocast, then
scaler.scale(loss).backward(); scaler.step(opt); scaler.update().
The gradients the optimizer sees are unscaled by the scaler inside step().
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_scaler():
    try:
        return torch.amp.GradScaler("cpu")
    except (AttributeError, TypeError, RuntimeError):
        return torch.cuda.amp.GradScaler(enabled=False)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(32, 4))
    protos = torch.randn(4, 3, 1, 1)
    labels = torch.randint(0, 4, (256,))
    images = torch.randn(256, 3, 16, 16) + protos[labels]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scaler = make_scaler()

    for step in range(args.steps):
        idx = torch.randint(0, len(images), (32,))
        x, y = images[idx], labels[idx]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f}", flush=True)


if __name__ == "__main__":
    main()
