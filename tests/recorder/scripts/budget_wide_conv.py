"""A CNN whose first conv writes a 4M-element activation per step (batch 16,
64 channels, 64x64), SGD. With TVIS_TEST_SAVE_DIR set, saves step 0's output
of `features.0` (a forward hook; the script's own doing, plain or recorded)."""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import parse, report


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = nn.Sequential()
    model.add_module("features", nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4)))
    model.add_module("flat", nn.Flatten())
    model.add_module("head", nn.Linear(64 * 16, 10))
    saved = {}
    save_dir = os.environ.get("TVIS_TEST_SAVE_DIR")

    def keep(module, inputs, output):
        if "step0" not in saved:
            saved["step0"] = output.detach().clone()

    model.features[0].register_forward_hook(keep)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(args.steps):
        x = torch.randn(16, 3, 64, 64)
        y = torch.randint(0, 10, (16,))
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)
        if save_dir and step == 0:
            torch.save(saved["step0"], os.path.join(save_dir, "features0_step0.pt"))


if __name__ == "__main__":
    main()
