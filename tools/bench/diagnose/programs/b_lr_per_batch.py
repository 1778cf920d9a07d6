"""A per-epoch StepLR stepped per batch: the learning rate collapses within a few steps.

Bug (--bug): a character-level LSTM language model trained with SGD and
StepLR(step_size=2, gamma=0.1), meant as "divide the rate by 10 every 2
epochs". scheduler.step() sits inside the batch loop, so the rate falls 10x
every 2 batches: 1.0, 1.0, 0.1, 0.1, 0.01 ... and training stalls after a
handful of batches (pytorch forums "learning rate becomes 0 after a few
iterations", the lr_scheduler docs' note that most schedulers step per epoch).
Twin: scheduler.step() once per epoch, after the batch loop.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)

text = ("the quick brown fox jumps over the lazy dog while the cat sleeps " * 40)
chars = sorted(set(text))
ids = torch.tensor([chars.index(c) for c in text])
SEQ, BATCH = 32, 16


class CharLM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 48)
        self.lstm = nn.LSTM(48, 128, num_layers=2, batch_first=True)
        self.out = nn.Linear(128, vocab)

    def forward(self, x):
        return self.out(self.lstm(self.embed(x))[0])


model = CharLM(len(chars))
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.1)
starts = torch.arange(0, len(ids) - SEQ - 1, SEQ // 2)  # 160 windows: 10 batches an epoch

step = 0
while step < args.steps:
    for chunk in starts[torch.randperm(len(starts))].split(BATCH):
        x = torch.stack([ids[s:s + SEQ] for s in chunk])
        y = torch.stack([ids[s + 1:s + SEQ + 1] for s in chunk])
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        lr = optimizer.param_groups[0]["lr"]
        optimizer.step()
        if args.bug:
            scheduler.step()
        print(f"step {step} loss {loss.item():.4f} lr {lr:.4g}")
        step += 1
        if step == args.steps:
            break
    if not args.bug:
        scheduler.step()
