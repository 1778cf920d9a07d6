"""PyTorch's examples/word_language_model shape: 2-layer LSTM LM, SGD lr 20.

Healthy. RNNModel (Embedding -> dropout -> 2-layer LSTM -> dropout -> Linear
decoder, log_softmax + NLLLoss), weights uniform(-0.1, 0.1), the corpus
batchified into 20 columns and read in bptt=35 chunks; the hidden state is
carried across chunks and detached (repackage_hidden) before each one
(truncated BPTT); clip_grad_norm_(0.25) and a plain SGD step at lr 20, the
example's defaults (the example applies the same update by hand,
p.data.add_(p.grad, alpha=-lr)). The corpus is a synthetic token stream from
a sparse random Markov chain over 200 words.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
ntokens, emsize, nhid, nlayers, bptt, batch_size = 200, 64, 64, 2, 35, 20

# Synthetic corpus: each word has 3 likely successors.
succ = torch.randint(0, ntokens, (ntokens, 3)).tolist()
stream = [0]
for c in torch.randint(0, 3, (20000,)).tolist():
    stream.append(succ[stream[-1]][c])
data = torch.tensor(stream)
nbatch = data.size(0) // batch_size
train_data = data[: nbatch * batch_size].view(batch_size, -1).t().contiguous()  # batchify


class RNNModel(nn.Module):
    def __init__(self, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntokens, emsize)
        self.rnn = nn.LSTM(emsize, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntokens)
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
        decoded = self.decoder(self.drop(output)).view(-1, ntokens)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        return (torch.zeros(nlayers, bsz, nhid), torch.zeros(nlayers, bsz, nhid))


def repackage_hidden(h):
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)


model = RNNModel()
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=20)
model.train()
hidden = model.init_hidden(batch_size)
for step, i in enumerate(range(0, args.steps * bptt, bptt)):
    i = i % (train_data.size(0) - 1 - bptt)
    inputs, targets = train_data[i:i + bptt], train_data[i + 1:i + 1 + bptt].reshape(-1)
    model.zero_grad()
    hidden = repackage_hidden(hidden)
    output, hidden = model(inputs, hidden)
    loss = criterion(output, targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
