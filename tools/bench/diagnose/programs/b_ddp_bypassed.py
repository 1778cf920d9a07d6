"""DDP training whose mixup steps bypass the wrapper: no all-reduce on those steps.

Bug (--bug): a GRU text classifier trained with manifold mixup on every other
step (the hidden states of two shuffled batches are mixed before the head).
The mixing forward is a method of the model, and DistributedDataParallel has
no attribute 'mixup_forward', so the training step calls
model.module.mixup_forward(...), the raw model, as HF Trainer subclasses and
custom compute_loss code often do. DDP's forward never ran on those steps, so
its reducer ignores their backward: each rank applies its own gradients and
the replicas drift apart, silently (pytorch forums "calling model.module
bypasses DDP gradient synchronization"; HF issues on custom compute_loss with
unwrapped models).
Twin: the mixing goes through the wrapper's forward (model(tokens, mix=...)).
Run with 2 processes (torchrun / tvis run --nproc-per-node 2), gloo backend.
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo")
torch.manual_seed(0)
VOCAB, CLASSES = 500, 4


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 64)
        self.gru = nn.GRU(64, 128, batch_first=True)
        self.classifier = nn.Linear(128, CLASSES)

    def mixup_forward(self, tokens, perm, lam):
        h = self.gru(self.embed(tokens))[0][:, -1]
        return self.classifier(lam * h + (1 - lam) * h[perm])

    def forward(self, tokens, mix=None):
        if mix is not None:
            return self.mixup_forward(tokens, *mix)
        return self.classifier(self.gru(self.embed(tokens))[0][:, -1])


model = DDP(GRUClassifier())
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
data = torch.Generator().manual_seed(100 + rank)  # each rank reads its own shard

for step in range(args.steps):
    tokens = torch.randint(0, VOCAB, (32, 24), generator=data)
    labels = tokens[:, :6].sum(1) % CLASSES
    if step % 2 == 0:
        loss = F.cross_entropy(model(tokens), labels)
    else:  # manifold mixup step
        perm, lam = torch.randperm(32, generator=data), 0.7
        if args.bug:
            logits = model.module.mixup_forward(tokens, perm, lam)  # the raw model: no all-reduce
        else:
            logits = model(tokens, mix=(perm, lam))
        loss = (lam * F.cross_entropy(logits, labels)
                + (1 - lam) * F.cross_entropy(logits, labels[perm]))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}")

dist.barrier()
dist.destroy_process_group()
