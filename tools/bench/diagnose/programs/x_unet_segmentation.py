"""A tiny U-Net segmenting bright discs in 1x32x32 images: BCE + soft dice, Adam.

Held-out healthy program. Mirrors the common binary-segmentation recipe
(e.g. milesial/Pytorch-UNet, carvana): a two-level U-Net with
Conv-BN-ReLU double convolutions, max-pool down, ConvTranspose up with skip
concatenation, one output logit channel, loss = BCEWithLogits + (1 - soft
dice on the sigmoid), Adam lr 1e-3. The data: noisy images holding 1-3
discs of random position and radius; the mask is the discs.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.inc, self.down1, self.down2 = double_conv(1, c), double_conv(c, 2 * c), double_conv(2 * c, 4 * c)
        self.up1, self.conv1 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2), double_conv(4 * c, 2 * c)
        self.up2, self.conv2 = nn.ConvTranspose2d(2 * c, c, 2, stride=2), double_conv(2 * c, c)
        self.outc = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(F.max_pool2d(x1, 2))
        x3 = self.down2(F.max_pool2d(x2, 2))
        y = self.conv1(torch.cat([self.up1(x3), x2], 1))
        y = self.conv2(torch.cat([self.up2(y), x1], 1))
        return self.outc(y)


yy, xx = torch.meshgrid(torch.arange(32.0), torch.arange(32.0), indexing="ij")
def batch(size=16):
    masks = torch.zeros(size, 1, 32, 32)
    for i in range(size):
        for _ in range(int(torch.randint(1, 4, ()))):
            cy, cx, r = torch.rand(3) * torch.tensor([32.0, 32.0, 6.0]) + torch.tensor([0.0, 0.0, 3.0])
            masks[i, 0] = torch.maximum(masks[i, 0], (((yy - cy) ** 2 + (xx - cx) ** 2) < r ** 2).float())
    images = 0.6 * masks + 0.2 + 0.15 * torch.randn_like(masks)
    return (images - 0.35) / 0.3, masks


def dice_loss(logits, target, eps=1.0):
    p = torch.sigmoid(logits)
    inter = (p * target).sum((1, 2, 3))
    return 1 - ((2 * inter + eps) / (p.sum((1, 2, 3)) + target.sum((1, 2, 3)) + eps)).mean()


model = UNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
model.train()
for step in range(args.steps):
    images, masks = batch()
    logits = model(images)
    loss = F.binary_cross_entropy_with_logits(logits, masks) + dice_loss(logits, masks)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
