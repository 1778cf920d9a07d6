"""A GPT-shaped language model on random tokens (no download), AdamW, CPU
(its GPT class also serves tools/device/cost_models.py on a GPU).
Prints `step k loss L` after every step.

Sizes (--size):
  13m   4 layers, d=384, 6 heads, vocab 8192, batch 4 x 128 (13.4M parameters)
  100m  12 layers, d=768, 12 heads, vocab 16384, batch 1 x 64 (110.3M parameters; the cost is in the parameters)
  attn1k 12 layers, d=768, 12 heads, vocab 8192, batch 2 x 1024, attention by
        F.scaled_dot_product_attention (is_causal): the rebuilt-attention case
        (tvis rebuilds each layer's probabilities from q and k)
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

SIZES = {"13m": dict(layers=4, d=384, heads=6, vocab=8192, batch=4, block=128),
         "100m": dict(layers=12, d=768, heads=12, vocab=16384, batch=1, block=64),
         "attn1k": dict(layers=12, d=768, heads=12, vocab=8192, batch=2, block=1024, sdpa=True)}


class Block(nn.Module):
    def __init__(self, d, heads, sdpa=False):
        super().__init__()
        self.sdpa = sdpa
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.heads = heads

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        if self.sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C)
            x = x + self.proj(y)
            return x + self.mlp(self.ln2(x))
        att = (q @ k.transpose(-2, -1)) / (k.size(-1) ** 0.5)
        att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).tril().logical_not(), float("-inf"))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(B, T, C)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, layers, d, heads, vocab, block, sdpa=False):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(block, d)
        self.blocks = nn.Sequential(*[Block(d, heads, sdpa) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.size(1), device=idx.device))
        return self.head(self.ln(self.blocks(x)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--size", choices=sorted(SIZES), default="13m")
    args = p.parse_args()
    s = SIZES[args.size]
    torch.manual_seed(0)
    model = GPT(s["layers"], s["d"], s["heads"], s["vocab"], s["block"], s.get("sdpa", False))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(args.steps):
        x = torch.randint(0, s["vocab"], (s["batch"], s["block"] + 1))
        logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, s["vocab"]), x[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        print("step %d loss %r" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
