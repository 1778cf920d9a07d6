"""GRU encoder-decoder with additive (Bahdanau) attention, reversing sequences.

Held-out healthy program. Mirrors the PyTorch "NLP From Scratch: Translation
with a Sequence to Sequence Network and Attention" tutorial, batched: an
embedding + GRU encoder, a GRU decoder whose input is the previous target
token (teacher forcing) concatenated with an attention context, additive
attention v^T tanh(W q + U k), cross entropy over the vocabulary, Adam lr
1e-3 and clip_grad_norm_(1.0). The task: output the source digits reversed.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)
VOCAB, SOS, HID, LEN = 12, 0, 64, 8  # tokens 2..11 are digits, 0 is <sos>


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HID)
        self.gru = nn.GRU(HID, HID, batch_first=True)

    def forward(self, src):
        return self.gru(self.emb(src))


class AttnDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HID)
        self.W, self.U, self.v = nn.Linear(HID, HID), nn.Linear(HID, HID), nn.Linear(HID, 1)
        self.gru = nn.GRU(2 * HID, HID, batch_first=True)
        self.out = nn.Linear(HID, VOCAB)

    def forward(self, enc_out, hidden, tgt_in):
        logits, keys = [], self.U(enc_out)
        for t in range(tgt_in.size(1)):
            scores = self.v(torch.tanh(self.W(hidden[-1]).unsqueeze(1) + keys))  # (B, S, 1)
            context = (F.softmax(scores, dim=1) * enc_out).sum(1, keepdim=True)
            x = torch.cat([self.emb(tgt_in[:, t:t + 1]), context], dim=-1)
            o, hidden = self.gru(x, hidden)
            logits.append(self.out(o))
        return torch.cat(logits, dim=1)


encoder, decoder = Encoder(), AttnDecoder()
params = list(encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)
for step in range(args.steps):
    src = torch.randint(2, VOCAB, (32, LEN))
    tgt = src.flip(1)
    tgt_in = torch.cat([torch.full((32, 1), SOS), tgt[:, :-1]], dim=1)  # teacher forcing
    optimizer.zero_grad()
    enc_out, hidden = encoder(src)
    logits = decoder(enc_out, hidden, tgt_in)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
