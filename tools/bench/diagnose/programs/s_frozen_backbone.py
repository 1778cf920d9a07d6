"""A correct frozen-backbone fine-tune: only the new head is trained.

Mirrors transfer learning from a "pretrained" CNN (the torchvision
fine-tuning tutorial's "ConvNet as fixed feature extractor"): the backbone's
parameters have requires_grad False, its BatchNorm layers stay in eval()
(running statistics frozen, kept so by overriding train()), and the
optimizer holds only the head's parameters.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class FineTuner(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.backbone.requires_grad_(False)
        self.head = nn.Linear(32, num_classes)

    def train(self, mode=True):
        super().train(mode)
        self.backbone.eval()  # frozen BatchNorm statistics
        return self

    def forward(self, x):
        return self.head(self.backbone(x))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    model = FineTuner()
    protos = torch.randn(5, 3, 1, 1)
    labels = torch.randint(0, 5, (320,))
    images = torch.randn(320, 3, 24, 24) + 1.5 * protos[labels]
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels),
                                         batch_size=16, shuffle=True)
    opt = torch.optim.SGD(model.head.parameters(), lr=0.05, momentum=0.9)
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
