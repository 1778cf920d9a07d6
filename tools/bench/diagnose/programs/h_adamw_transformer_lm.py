"""Tiny causal Transformer language model, AdamW lr 3e-4.

Healthy. The shape of PyTorch's word_language_model "Transformer" variant and
of nanoGPT-style scripts: token embedding + learned positions,
nn.TransformerEncoder with a causal mask, Linear head, next-token
cross-entropy.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
vocab, seq_len, batch_size, d_model = 64, 32, 16, 64


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(seq_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=128,
                                           dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, idx):
        t = idx.size(1)
        h = self.tok(idx) + self.pos(torch.arange(t))
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.encoder(h, mask=mask, is_causal=True)
        return self.head(h)


# Synthetic corpus: each sequence counts upward by a random stride (mod vocab).
def get_batch():
    start = torch.randint(0, vocab, (batch_size, 1))
    stride = torch.randint(1, 4, (batch_size, 1))
    seq = (start + stride * torch.arange(seq_len + 1)) % vocab
    return seq[:, :-1], seq[:, 1:]


model = TinyLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
model.train()
for step in range(args.steps):
    x, y = get_batch()
    logits = model(x)
    loss = F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
