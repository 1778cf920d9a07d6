"""A WGAN-shaped loop whose optimizers do not step every iteration: the
critic (D) steps every iteration, the generator (G) every N_CRITIC-th, from a
DataLoader of "real" vectors. Each iteration prints
    step <i> loss_d <repr> loss_g <repr|None> weights <digest of D and G>
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from fidelity_util import digest, parse

N_CRITIC = 2


def main():
    args = parse()
    torch.manual_seed(args.seed)
    loader = DataLoader(TensorDataset(torch.randn(96, 8)), batch_size=8, shuffle=True)
    netD = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    optD = torch.optim.RMSprop(netD.parameters(), lr=5e-4)
    optG = torch.optim.RMSprop(netG.parameters(), lr=5e-4)
    i = 0
    while i < args.steps:
        for (real,) in loader:
            if i >= args.steps:
                break
            optD.zero_grad()
            loss_d = netD(netG(torch.randn(real.size(0), 4)).detach()).mean() - netD(real).mean()
            loss_d.backward()
            optD.step()
            loss_g = None
            if i % N_CRITIC == N_CRITIC - 1:
                optG.zero_grad()
                lg = -netD(netG(torch.randn(real.size(0), 4))).mean()
                lg.backward()
                optG.step()
                loss_g = lg.item()
            print("step %d loss_d %r loss_g %r weights %s" % (i, loss_d.item(), loss_g, digest(netD, netG)), flush=True)
            i += 1


if __name__ == "__main__":
    main()
