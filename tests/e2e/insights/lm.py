"""A character language model with hand-written causal attention (2 layers,
2 heads, T = 16), no dropout, AdamW; its vocabulary is `chars`.

argv[1]: where to torch.save, per step, the softmax weights the script itself
computed ([B, H, T, T] per layer, in forward order) and the batch's token ids,
for the test's independent rollout; and the token table `tok` before training
(its PCA is checked against the page's).
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the quick brown fox jumps over the lazy dog and a journey of a thousand miles begins with a step"
chars = sorted(set(TEXT))
SAVED = []  # this forward's softmax weights, per layer


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
        att = torch.softmax(scores, dim=-1)
        SAVED.append(att.detach().clone())
        return self.proj((att @ v).transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln(x))
        return x + self.mlp(x)


class CharLM(nn.Module):
    def __init__(self, vocab, dim=32, heads=2, layers=2, block=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(block, dim))
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(layers)])
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        x = self.tok(idx) + self.pos[: idx.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        return self.head(x)


def main(ref_path):
    torch.manual_seed(0)
    ids = torch.tensor([chars.index(c) for c in TEXT])
    model = CharLM(len(chars))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    ref = {"steps": [], "chars": chars, "tok": model.tok.weight.detach().clone()}
    for step in range(3):
        starts = torch.randint(0, len(TEXT) - 17, (8,))
        x = torch.stack([ids[s:s + 16] for s in starts])
        y = torch.stack([ids[s + 1:s + 17] for s in starts])
        SAVED.clear()
        logits = model(x)
        ref["steps"].append({"att": list(SAVED), "x": x})
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(ref, ref_path)


if __name__ == "__main__":
    main(sys.argv[1])
