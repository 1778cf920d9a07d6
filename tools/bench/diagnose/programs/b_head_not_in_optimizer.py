"""A classifier head replaced after the optimizer was built: the new head trains with nobody.

Bug (--bug): a small ResNet is set up with its optimizer (as a generic
training helper does), then the script adapts it to the task's 7 classes
with model.fc = nn.Linear(...). The optimizer still holds the old head's
tensors; the new head gets gradients every step but no optimizer updates it,
so it stays at its random init (pytorch forums "new layer not training after
replacing fc", "optimizer created before modifying the model").
Twin: the head is replaced first, then the optimizer is built.
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


class Residual(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))) + self.skip(x))


class TinyResNet(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU())
        self.layer1, self.layer2 = Residual(16, 32, 2), Residual(32, 64, 2)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(self.layer2(self.layer1(self.stem(x))).mean((2, 3)))


model = TinyResNet()
if args.bug:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
model.fc = nn.Linear(64, 7)  # the task's 7 classes
if not args.bug:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)

colors = torch.rand(7, 3, 1, 1) * 2 - 1
for step in range(args.steps):
    y = torch.randint(0, 7, (32,))
    x = colors[y] + 0.7 * torch.randn(32, 3, 32, 32)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
