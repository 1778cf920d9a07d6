"""torchvision ResNet-18 with zero_init_residual=True on CIFAR-shaped data.

Mirrors the common ImageNet/CIFAR recipe (torchvision references, timm):
the last BatchNorm of every residual branch starts with weight zero, so
each block starts as the identity, and SGD with momentum 0.9, lr 0.1 and
weight decay 5e-4 trains it. The zero BN weights get a gradient and move
a lot relative to their zero starting value on the first steps.
"""
import argparse

import torch
import torch.nn.functional as F
import torchvision


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    # Synthetic normalised 3x32x32 images: noise plus a per-class pattern.
    protos = torch.randn(10, 3, 32, 32)
    labels = torch.randint(0, 10, (512,))
    images = torch.randn(512, 3, 32, 32) + protos[labels]
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels),
                                         batch_size=16, shuffle=True, drop_last=True)

    model = torchvision.models.resnet18(num_classes=10, zero_init_residual=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    model.train()

    step = 0
    while step < args.steps:
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(f"step {step} loss {loss.item():.4f}", flush=True)
            step += 1
            if step == args.steps:
                break


if __name__ == "__main__":
    main()
