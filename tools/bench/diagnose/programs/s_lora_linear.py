"""LoRA written by hand on a frozen "pretrained" MLP stack.

Mirrors peft-style LoRA fine-tuning: every base Linear is frozen
(requires_grad False), each gets a low-rank adapter A (kaiming init) and
B (zeros, so the adapted model starts equal to the base model), and only
the adapters go to AdamW. At step 0 the gradient of A is exactly zero
(B is zero) and B's first update is large relative to its zero weight.
The downstream task is the base model shifted by a low-rank change.
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=8, alpha=16):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


def mlp(layers, x):
    for i, layer in enumerate(layers):
        x = layer(x)
        x = F.gelu(x) if i < len(layers) - 1 else x
    return x


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    # The "pretrained" backbone: random weights (scaled like trained ones), frozen.
    base = nn.ModuleList([nn.Linear(32, 64), nn.Linear(64, 64), nn.Linear(64, 4)])
    with torch.no_grad():
        for lin in base:
            lin.weight.mul_(2.0)
    base.requires_grad_(False)
    # Labels from the base model plus a rank-2 change of every weight.
    x = torch.randn(512, 32)
    with torch.no_grad():
        shifted = [nn.Linear(l.in_features, l.out_features) for l in base]
        for s, l in zip(shifted, base):
            delta = torch.randn(l.out_features, 2) @ torch.randn(2, l.in_features) * 0.5 / l.in_features ** 0.5
            s.weight.copy_(l.weight + delta)
            s.bias.copy_(l.bias)
        y = mlp(shifted, x).argmax(dim=1)

    model = nn.ModuleList([LoRALinear(lin) for lin in base])
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-3, weight_decay=0.01)
    for step in range(args.steps):
        idx = torch.randint(0, len(x), (64,))
        loss = F.cross_entropy(mlp(model, x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
