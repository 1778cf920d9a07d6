"""A small transformer LM (hand-written attention softmax, dropout), [B*T, V]
cross entropy with ignore_index padding, AdamW."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import dump, parse, report

V, T, D, H = 20, 12, 32, 4


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, D)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (z.view(b, t, H, d // H).transpose(1, 2) for z in self.qkv(x).split(d, 2))
        s = q @ k.transpose(-2, -1) / math.sqrt(d // H)
        s = s.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
        a = self.drop(torch.softmax(s, dim=-1))
        return self.out((a @ v).transpose(1, 2).reshape(b, t, d))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.ln = nn.LayerNorm(D)
        self.attn = Attn()
        self.mlp = nn.Sequential(nn.Linear(D, 2 * D), nn.GELU(), nn.Linear(2 * D, D))
        self.head = nn.Linear(D, V)

    def forward(self, idx):
        x = self.emb(idx)
        x = x + self.attn(self.ln(x))
        x = x + self.mlp(x)
        return self.head(x)


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = LM()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
    dump(args, model, "w_init")
    for step in range(args.steps):
        x = torch.randint(1, V, (6, T))
        y = torch.roll(x, -1, 1)
        y[:, -3:] = -100  # padding
        logits = model(x)
        b, t, v = logits.shape
        loss = F.cross_entropy(logits.view(b * t, v), y.view(b * t), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
