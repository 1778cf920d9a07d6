"""Fine-tune whose optimizer steps change nothing: the head was frozen too.

Bug (--bug): a linear probe on a "pretrained" CNN. The freeze loop was taken
from a BatchNorm-adaptation recipe, so it leaves only the BatchNorm affine
parameters trainable and freezes the classifier as well, while the optimizer
is built over the classifier alone. Every optimizer.step() skips the head
(its .grad stays None) and changes nothing; the loss only moves through the
BatchNorm running statistics. Users meet it in transfer-learning forums as
"my fine-tune's accuracy never changes" (forum threads on freezing everything
but BN, and on requires_grad set by module type).
Twin: the freeze rule keeps the classifier trainable, the rest frozen.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(block(3, 16), block(16, 32), block(32, 64))
        self.classifier = nn.Linear(64, classes)

    def forward(self, x):
        return self.classifier(F.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


model = Net()
for module in model.modules():
    for p in module.parameters(recurse=False):
        if args.bug:  # the BN-adaptation rule: only BatchNorm stays trainable
            p.requires_grad = isinstance(module, nn.BatchNorm2d)
        else:         # linear probe: only the head trains
            p.requires_grad = module is model.classifier
optimizer = torch.optim.SGD(model.classifier.parameters(), lr=0.05, momentum=0.9)

centers = torch.randn(10, 3, 1, 1)
model.train()
for step in range(args.steps):
    y = torch.randint(0, 10, (32,))
    x = centers[y] + 0.8 * torch.randn(32, 3, 32, 32)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
