"""A small vision transformer with hand-written attention: 16x16 images cut
into 4x4 patches by a strided conv (16 patches, [CLS] first: T = 17), 2
layers, 2 heads, no dropout; random images from a DataLoader, SGD. Its
softmax is the project's own, so the Attention page has its maps, with
patch positions on the axes and where [CLS] looks painted over the picture.

argv[1]: where to torch.save, per step, the softmax weights the script itself
computed ([B, H, T, T] per layer, in forward order) and the batch, for the
test's independent rollout (the same layout as lm.py's).
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

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
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
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


class TinyViT(nn.Module):
    def __init__(self, dim=32, heads=2, layers=2, classes=5):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 4, stride=4)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, 17, dim) * 0.02)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(layers)])
        self.head = nn.Linear(dim, classes)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)  # [B, 16, dim], patches row by row
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(x[:, 0])


def main(ref_path):
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(24, 3, 16, 16), torch.randint(0, 5, (24,)))
    model = TinyViT()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    ref = {"steps": []}
    for x, y in DataLoader(data, batch_size=8):
        SAVED.clear()
        scores = model(x)
        ref["steps"].append({"att": list(SAVED), "x": x})
        torch.save(ref, ref_path)  # each step: tvis run --steps N may stop the script after step N
        opt.zero_grad()
        F.cross_entropy(scores, y).backward()
        opt.step()


if __name__ == "__main__":
    main(sys.argv[1])
