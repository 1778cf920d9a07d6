"""PyTorch's examples/dcgan shape, scaled down to 16x16 grayscale images.

Healthy. Generator (ConvTranspose-BN-ReLU, Tanh) and Discriminator
(Conv-LeakyReLU, Conv-BN-LeakyReLU, Sigmoid), DCGAN weights_init, BCELoss,
two Adam optimizers (lr 2e-4, betas (0.5, 0.999)). Each iteration updates D
on a real batch and a detached fake batch, then G through D. After each
iteration G samples a fixed noise batch under no_grad in eval mode (the
example's progress images), then goes back to train mode. --steps counts
iterations (each has one D step and one G step).
"""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
nz, ngf, ndf, batch_size = 32, 32, 32, 32

netG = nn.Sequential(
    nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),  # 4x4
    nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),     # 8x8
    nn.ConvTranspose2d(ngf, 1, 4, 2, 1, bias=False), nn.Tanh(),                                     # 16x16
)
netD = nn.Sequential(
    nn.Conv2d(1, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),                        # 8x8
    nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),  # 4x4
    nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid(),
)


def weights_init(m):
    if "Conv" in type(m).__name__:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm" in type(m).__name__:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


netG.apply(weights_init)
netD.apply(weights_init)

# "Real" data: soft blobs at random positions, scaled to [-1, 1] like Normalize((0.5,), (0.5,)).
grid = torch.stack(torch.meshgrid(torch.arange(16.0), torch.arange(16.0), indexing="ij"))
def real_batch():
    centers = torch.rand(batch_size, 2, 1, 1) * 10 + 3
    blobs = torch.exp(-((grid - centers) ** 2).sum(1, keepdim=True) / 8.0)
    return blobs * 2 - 1


criterion = nn.BCELoss()
fixed_noise = torch.randn(16, nz, 1, 1)
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))

for step in range(args.steps):
    # (1) Update D: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    real = real_batch()
    errD_real = criterion(netD(real).view(-1), torch.ones(batch_size))
    errD_real.backward()
    fake = netG(torch.randn(batch_size, nz, 1, 1))
    errD_fake = criterion(netD(fake.detach()).view(-1), torch.zeros(batch_size))
    errD_fake.backward()
    optimizerD.step()
    # (2) Update G: maximize log(D(G(z)))
    netG.zero_grad()
    errG = criterion(netD(fake).view(-1), torch.ones(batch_size))
    errG.backward()
    optimizerG.step()
    print(f"step {step} loss_D {(errD_real + errD_fake).item():.4f} loss_G {errG.item():.4f}")
    # Progress image from the fixed noise.
    netG.eval()
    with torch.no_grad():
        progress = netG(fixed_noise)
    netG.train()
