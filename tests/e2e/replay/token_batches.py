"""Replay's token reference run: a tiny next-token model over fixed token
ids (TOKENS, [24, 12] int64) from a DataLoader without shuffling, batch 8,
Adam. The data phase draws the batch as token strips; check_data.py
compares them with TOKENS. No transforms: the dataset returns rows as stored.

    tvis run --steps 3 token_batches.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

VOCAB = 29
TOKENS = (torch.arange(24 * 12).reshape(24, 12) * 7 + 3) % VOCAB  # row k: a known arithmetic run of ids
BATCH = 8


class NextToken(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 16)
        self.mix = nn.Linear(16, 16)
        self.head = nn.Linear(16, VOCAB)

    def forward(self, ids):
        return self.head(torch.tanh(self.mix(self.emb(ids))))


def main():
    torch.manual_seed(0)
    model = NextToken()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loader = DataLoader(TensorDataset(TOKENS[:, :-1], TOKENS[:, 1:]), batch_size=BATCH)
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
        print("step %d loss %r" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
