"""DDP without a DistributedSampler: every rank trains on the same batches.

Bug (--bug): a denoising autoencoder for sensor vectors, trained on 2 ranks.
The DataLoader has shuffle=True and no DistributedSampler; every rank seeds
torch with the same seed (so the initial weights agree), so every rank draws
the same permutation and sees exactly the same batches. Nothing fails: the
gradients are averaged over copies of one batch, so 2 ranks do the work of
one (pytorch forums "Do I need DistributedSampler with DDP?", "each GPU gets
the same data").
Twin: a DistributedSampler gives each rank its own share (set_epoch per epoch).
Run with 2 processes (torchrun / tvis run --nproc-per-node 2), gloo backend.
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo")
torch.manual_seed(0)

latent = torch.randn(4096, 8)
signals = torch.tanh(latent @ torch.randn(8, 96)) + 0.1 * torch.randn(4096, 96)
dataset = TensorDataset(signals)
if args.bug:
    sampler, loader = None, DataLoader(dataset, batch_size=128, shuffle=True)
else:
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=128, sampler=sampler)

autoencoder = nn.Sequential(nn.Linear(96, 64), nn.SiLU(), nn.Linear(64, 16), nn.SiLU(),
                            nn.Linear(16, 64), nn.SiLU(), nn.Linear(64, 96))
model = DDP(autoencoder)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

step, epoch = 0, 0
while step < args.steps:
    if sampler is not None:
        sampler.set_epoch(epoch)
    for (clean,) in loader:
        noisy = clean + 0.3 * torch.randn_like(clean)
        loss = F.mse_loss(model(noisy), clean)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}")
        step += 1
        if step == args.steps:
            break
    epoch += 1

dist.barrier()
dist.destroy_process_group()
