"""The DCGAN shape: a Generator and a Discriminator that both call their
layers `main` (an nn.Sequential), two Adam optimizers, a DataLoader of
"real" images. Each iteration: D on a real batch (errD_real.backward()), D on
G's fakes (errD_fake.backward()), optimizerD.step(); then G through D
(errG.backward()), optimizerG.step(); then the iteration's line
    step <i> loss_d <repr> loss_g <repr> weights <digest of D and G>
(Loss_D is errD_real + errD_fake, as DCGAN prints it). A fixed-noise sample
after each iteration, with gradients on as in PyTorch's DCGAN but never
backpropagated, is an evaluation.

With --dump DIR: losses.pt holds each iteration's [errD_real, errD_fake, errG].
"""
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from fidelity_util import digest, parse

NZ, NGF, NDF = 8, 8, 8


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(NZ, NGF * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(NGF * 2), nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 2, NGF, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF), nn.ReLU(True),
            nn.ConvTranspose2d(NGF, 1, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, NDF, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF, NDF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


def main():
    args = parse()
    torch.manual_seed(args.seed)
    images = torch.tanh(torch.randn(64, 1, 16, 16))
    dataloader = DataLoader(TensorDataset(images, torch.zeros(64, dtype=torch.long)), batch_size=8, shuffle=True)
    netG, netD = Generator(), Discriminator()
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(4, NZ, 1, 1)
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    record = []
    i = 0
    while i < args.steps:
        for real, _ in dataloader:
            if i >= args.steps:
                break
            netD.zero_grad()
            b = real.size(0)
            label = torch.full((b,), 1.0)
            errD_real = criterion(netD(real), label)
            errD_real.backward()
            fake = netG(torch.randn(b, NZ, 1, 1))
            label.fill_(0.0)
            errD_fake = criterion(netD(fake.detach()), label)
            errD_fake.backward()
            errD = errD_real + errD_fake
            optimizerD.step()
            netG.zero_grad()
            label.fill_(1.0)
            errG = criterion(netD(fake), label)
            errG.backward()
            optimizerG.step()
            netG(fixed_noise).detach()  # as PyTorch's DCGAN: gradients on, never backpropagated
            record.append([errD_real.item(), errD_fake.item(), errG.item()])
            if args.dump:
                os.makedirs(args.dump, exist_ok=True)
                torch.save(record, os.path.join(args.dump, "losses.pt"))
            print("step %d loss_d %r loss_g %r weights %s" % (i, errD.item(), errG.item(), digest(netD, netG)),
                  flush=True)
            i += 1


if __name__ == "__main__":
    main()
