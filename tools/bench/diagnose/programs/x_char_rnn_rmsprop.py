"""A character-level LSTM language model on a synthetic text, RMSprop lr 2e-3.

Held-out healthy program. Mirrors karpathy's char-rnn (and its PyTorch
ports): a character embedding, a 2-layer LSTM of 128 units with dropout
0.2, a Linear decoder over the character set, truncated BPTT over 64
characters with the hidden state carried across batches and detached,
cross entropy, RMSprop lr 2e-3 (alpha 0.95, char-rnn's decay), gradient
norm clipped at 5. The text: sentences generated from a small grammar.
"""
import argparse
import random

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)
random.seed(0)
SEQ, BATCH = 64, 32

subjects = ["the cat", "a dog", "my old friend", "the quick fox", "every student", "she", "he"]
verbs = ["sat on", "jumped over", "looked at", "ran past", "wrote to", "dreamed of"]
objects = ["the mat", "a lazy dog", "the river", "his teacher", "the red door", "an apple tree"]
text = " ".join(f"{random.choice(subjects)} {random.choice(verbs)} {random.choice(objects)}"
                f"{random.choice(['.', '.', '!', ', and then'])}" for _ in range(4000))
chars = sorted(set(text))
data = torch.tensor([chars.index(c) for c in text])
streams = data[: len(data) // BATCH * BATCH].view(BATCH, -1)  # BATCH parallel streams, as in char-rnn


class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=128):
        super().__init__()
        self.emb = nn.Embedding(vocab, 64)
        self.lstm = nn.LSTM(64, hidden, num_layers=2, dropout=0.2, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        y, state = self.lstm(self.emb(x), state)
        return self.out(y), state


model = CharRNN(len(chars))
optimizer = torch.optim.RMSprop(model.parameters(), lr=2e-3, alpha=0.95)
model.train()
state, pos = None, 0
for step in range(args.steps):
    if pos + SEQ + 1 > streams.size(1):
        state, pos = None, 0
    x, y = streams[:, pos:pos + SEQ], streams[:, pos + 1:pos + SEQ + 1]
    pos += SEQ
    if state is not None:
        state = tuple(s.detach() for s in state)
    logits, state = model(x, state)
    loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
