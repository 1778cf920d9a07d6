"""Skip-gram with negative sampling: sparse nn.Embedding tables and SparseAdam.

Held-out healthy program. Mirrors the usual PyTorch word2vec
implementations (e.g. Andras7/word2vec-pytorch): two embedding tables
(centre words "u", context words "v") with sparse=True, u initialised
uniform(+-1/dim) and v at zero, loss = -log sigmoid(u.v) - sum log
sigmoid(-u.v_neg) over 5 negatives drawn from the unigram^0.75
distribution, torch.optim.SparseAdam lr 1e-3. The corpus is a synthetic
Zipfian token stream with topic structure; (centre, context) pairs come
from a window of 2.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)
VOCAB, DIM, WINDOW, NEG = 5000, 100, 2, 5

# A synthetic corpus: 50 topics, each a Zipfian distribution over its own shuffled vocabulary.
zipf = 1.0 / torch.arange(1, VOCAB + 1).float()
topics = torch.stack([zipf[torch.randperm(VOCAB)] for _ in range(50)])
corpus = torch.cat([torch.multinomial(topics[t], 40, replacement=True) for t in torch.randint(0, 50, (2000,))])
counts = torch.bincount(corpus, minlength=VOCAB).float()
noise = counts ** 0.75 / (counts ** 0.75).sum()


class SkipGram(nn.Module):
    def __init__(self):
        super().__init__()
        self.u = nn.Embedding(VOCAB, DIM, sparse=True)
        self.v = nn.Embedding(VOCAB, DIM, sparse=True)
        nn.init.uniform_(self.u.weight, -1.0 / DIM, 1.0 / DIM)
        nn.init.zeros_(self.v.weight)

    def forward(self, centre, context, negatives):
        u = self.u(centre)
        pos = F.logsigmoid((u * self.v(context)).sum(1))
        neg = F.logsigmoid(-torch.bmm(self.v(negatives), u.unsqueeze(2)).squeeze(2)).sum(1)
        return -(pos + neg).mean()


model = SkipGram()
optimizer = torch.optim.SparseAdam(list(model.parameters()), lr=1e-3)
for step in range(args.steps):
    pos = torch.randint(WINDOW, len(corpus) - WINDOW, (512,))
    offset = torch.randint(1, WINDOW + 1, (512,)) * (torch.randint(0, 2, (512,)) * 2 - 1)
    centre, context = corpus[pos], corpus[pos + offset]
    negatives = torch.multinomial(noise, 512 * NEG, replacement=True).view(512, NEG)
    optimizer.zero_grad()
    loss = model(centre, context, negatives)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
