"""A character-level transformer language model with its attention written out.

The corpus is embedded below (no download). Each batch is B lines of text,
padded to T characters; padded target positions are ignore_index (-100).
The logits [B, T, V] are reshaped to [B*T, V] for F.cross_entropy, AdamW
updates. Attention is computed by hand: softmax(q k^T / sqrt(d) + mask).
Prints `step N loss L` with repr(loss.item()) for every step.

    python examples/char_transformer.py [--steps 20] [--seed 0]
    tvis run --steps 3 examples/char_transformer.py
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CORPUS = """\
the quick brown fox jumps over the lazy dog
a journey of a thousand miles begins with a single step
all that glitters is not gold
to be or not to be that is the question
the early bird catches the worm
actions speak louder than words
knowledge is power and power corrupts
practice makes perfect but nobody is perfect
time flies like an arrow and fruit flies like a banana
where there is a will there is a way
the pen is mightier than the sword
an apple a day keeps the doctor away
"""


class Vocab:
    def __init__(self, text):
        self.chars = ["<pad>"] + sorted(set(text) - {"\n"})
        self.index = {c: i for i, c in enumerate(self.chars)}

    def encode(self, s):
        return [self.index[c] for c in s]


class SelfAttention(nn.Module):
    def __init__(self, dim, heads, dropout):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, pad_mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        att = torch.softmax(scores, dim=-1)  # [B, H, T, T]: the attention weights
        att = self.drop(att)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim, heads, dropout):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads, dropout)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(dropout))

    def forward(self, x, pad_mask):
        x = x + self.attn(self.ln1(x), pad_mask)
        return x + self.mlp(self.ln2(x))


class CharLM(nn.Module):
    def __init__(self, vocab_size, block_size, dim=48, heads=4, layers=2, dropout=0.1):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim)
        self.pos = nn.Embedding(block_size, dim)
        self.blocks = nn.ModuleList([Block(dim, heads, dropout) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, idx, pad_mask):
        b, t = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(t))
        for blk in self.blocks:
            x = blk(x, pad_mask)
        return self.head(self.ln(x))


def make_batch(lines, vocab, rows, block):
    """Inputs [B, T] and targets [B, T] (next character; -100 where padded)."""
    x = torch.zeros(len(rows), block, dtype=torch.long)
    y = torch.full((len(rows), block), -100, dtype=torch.long)
    for r, i in enumerate(rows):
        ids = vocab.encode(lines[i])[: block + 1]
        n = len(ids) - 1
        x[r, :n] = torch.tensor(ids[:-1])
        y[r, :n] = torch.tensor(ids[1:])
    return x, y


def main(args):
    torch.manual_seed(args.seed)
    lines = CORPUS.strip().split("\n")
    vocab = Vocab(CORPUS)
    model = CharLM(len(vocab.chars), args.block)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    for step in range(args.steps):
        rows = torch.randint(len(lines), (args.batch_size,)).tolist()
        x, y = make_batch(lines, vocab, rows, args.block)
        logits = model(x, x != 0)
        b, t, v = logits.shape
        loss = F.cross_entropy(logits.view(b * t, v), y.view(b * t), ignore_index=-100)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        print("step %d loss %r" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--block", type=int, default=48)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    main(p.parse_args())
