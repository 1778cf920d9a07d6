"""DDP where only rank 0 clips the gradients: the replicas' weights drift apart.

Bug (--bug): a small Transformer encoder classifying token sequences on 2
ranks. Gradient clipping was written inside the "main process" block that
also logs the gradient norm, so only rank 0 clips (max_norm 0.1, well under
the gradient's norm) while rank 1 steps with the full, all-reduced gradient.
DDP keeps the gradients equal but not the updates: the weights differ from
the first step and no error is raised (pytorch forums "DDP models diverge
across GPUs", accelerate docs on clipping on every process).
Twin: every rank clips; only the logging stays on rank 0.
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
VOCAB, CLASSES, LEN = 200, 3, 16


class SeqClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 64)
        self.pos = nn.Parameter(torch.randn(LEN, 64) * 0.02)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(64, CLASSES)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens) + self.pos).mean(1))


model = DDP(SeqClassifier())
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
data = torch.Generator().manual_seed(7 + rank)  # each rank its own shard

for step in range(args.steps):
    tokens = torch.randint(0, VOCAB, (32, LEN), generator=data)
    labels = (tokens < 20).sum(1).clamp(max=CLASSES - 1)
    loss = F.cross_entropy(model(tokens), labels)
    optimizer.zero_grad()
    loss.backward()
    if args.bug:
        if rank == 0:  # main process: clip and log
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.1)
            print(f"step {step} loss {loss.item():.4f} grad_norm {norm.item():.4f}")
    else:
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.1)
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f} grad_norm {norm.item():.4f}")
    optimizer.step()

dist.barrier()
dist.destroy_process_group()
