"""A small VAE on 784-dimensional data in [0, 1]: BCE reconstruction + KL.

Mirrors pytorch/examples' vae/main.py: an MLP encoder to (mu, logvar),
the reparameterisation trick, a sigmoid decoder, loss =
binary_cross_entropy(recon, x, reduction="sum") + KL divergence, summed
over the batch (so the loss is in the thousands), Adam lr 1e-3. The data
are synthetic "images": sigmoids of a low-dimensional latent.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, latent=16):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc_mu, self.fc_logvar = nn.Linear(256, latent), nn.Linear(256, latent)
        self.fc3, self.fc4 = nn.Linear(latent, 256), nn.Linear(256, 784)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        mu, logvar = self.fc_mu(h), self.fc_logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z)))), mu, logvar


def loss_function(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    data = torch.sigmoid(3.0 * torch.randn(2048, 8) @ torch.randn(8, 784) / 8 ** 0.5)
    loader = torch.utils.data.DataLoader(data, batch_size=64, shuffle=True)
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()

    step = 0
    while step < args.steps:
        for x in loader:
            recon, mu, logvar = model(x)
            loss = loss_function(recon, x, mu, logvar)
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(f"step {step} loss {loss.item() / len(x):.4f}", flush=True)
            step += 1
            if step == args.steps:
                break


if __name__ == "__main__":
    main()
