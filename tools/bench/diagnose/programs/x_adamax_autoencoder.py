"""A convolutional autoencoder on synthetic 1x28x28 images, Adamax and MSE.

Held-out healthy program. Mirrors the common "convolutional autoencoder on
MNIST" tutorial: an encoder of strided Conv2d + ReLU (28 -> 14 -> 7) to a
32-d bottleneck Linear, a decoder of Linear + ConvTranspose2d back to
28x28 with a final Sigmoid, MSE between reconstruction and input pixels
in [0, 1], torch.optim.Adamax at its default lr 2e-3. The images: blurred
random strokes (sums of a few Gaussian blobs along lines).
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)

yy, xx = torch.meshgrid(torch.arange(28.0), torch.arange(28.0), indexing="ij")
def batch(size=64):
    a, b = torch.rand(size, 2, 1, 1) * 20 + 4, torch.rand(size, 2, 1, 1) * 20 + 4
    img = torch.zeros(size, 28, 28)
    for t in torch.linspace(0, 1, 8):
        c = a + t * (b - a)
        img = img + torch.exp(-((yy - c[:, 0]) ** 2 + (xx - c[:, 1]) ** 2) / 4.0)
    return img.clamp(0, 1).unsqueeze(1)


class AutoEncoder(nn.Module):
    def __init__(self, latent=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(),
                                     nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
                                     nn.Flatten(), nn.Linear(32 * 7 * 7, latent))
        self.decoder = nn.Sequential(nn.Linear(latent, 32 * 7 * 7), nn.ReLU(), nn.Unflatten(1, (32, 7, 7)),
                                     nn.ConvTranspose2d(32, 16, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
                                     nn.ConvTranspose2d(16, 1, 3, stride=2, padding=1, output_padding=1),
                                     nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = AutoEncoder()
optimizer = torch.optim.Adamax(model.parameters(), lr=2e-3)
model.train()
for step in range(args.steps):
    images = batch()
    loss = F.mse_loss(model(images), images)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.5f}")
