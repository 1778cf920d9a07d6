"""The benchmark's goal case: torchvision ResNet-18 (untrained), 32x32 inputs,
batch 32, SGD, CPU. Prints `step k loss L` after every step."""
import argparse

import torch
import torch.nn.functional as F
import torchvision

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=10)
p.add_argument("--batch", type=int, default=32)
args = p.parse_args()
torch.manual_seed(0)
model = torchvision.models.resnet18(num_classes=10)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for step in range(args.steps):
    x = torch.randn(args.batch, 3, 32, 32)
    y = torch.randint(0, 10, (args.batch,))
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print("step %d loss %r" % (step, loss.item()), flush=True)
