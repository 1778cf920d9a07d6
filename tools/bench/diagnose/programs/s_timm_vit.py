"""A tiny Vision Transformer from timm (built from config) on CIFAR-shaped data.

Mirrors timm's train.py recipe in small: timm.create_model(
"vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=4,
num_classes=10, depth=4) (4 of the 12 blocks, to
keep it fast on a CPU), AdamW with weight decay 0.05, and cross-entropy with
label_smoothing=0.1 (so the loss never reaches zero).
"""
import argparse

import timm
import torch
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    model = timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=4,
                              num_classes=10, depth=4)
    protos = torch.randn(10, 3, 32, 32)
    labels = torch.randint(0, 10, (512,))
    images = torch.randn(512, 3, 32, 32) + 0.5 * protos[labels]
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels),
                                         batch_size=16, shuffle=True, drop_last=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    model.train()

    step = 0
    while step < args.steps:
        for x, y in loader:
            loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(f"step {step} loss {loss.item():.4f}", flush=True)
            step += 1
            if step == args.steps:
                break


if __name__ == "__main__":
    main()
