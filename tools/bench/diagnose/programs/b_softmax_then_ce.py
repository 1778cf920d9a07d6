"""A text classifier whose forward ends in softmax, fed to nn.CrossEntropyLoss.

Bug (--bug): an EmbeddingBag + Linear news classifier (the torchtext
tutorial's shape) returns softmax probabilities from forward(), "so that
inference gives probabilities", and training feeds them to
nn.CrossEntropyLoss, which applies log_softmax itself. The loss is squashed
into [log C - 1, log C], the gradients shrink, and training crawls (pytorch
forums and StackOverflow "softmax before CrossEntropyLoss", a Keras habit).
Twin: forward returns the raw logits.
"""
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
VOCAB, CLASSES = 5000, 4


class TextClassifier(nn.Module):
    def __init__(self, probabilities):
        super().__init__()
        self.embedding = nn.EmbeddingBag(VOCAB, 64, mode="mean")
        self.fc = nn.Linear(64, CLASSES)
        self.probabilities = probabilities
        for weight in (self.embedding.weight, self.fc.weight):  # the tutorial's init
            weight.data.uniform_(-0.5, 0.5)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        logits = self.fc(self.embedding(text, offsets))
        return torch.softmax(logits, dim=1) if self.probabilities else logits


model = TextClassifier(probabilities=args.bug)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
keywords = torch.randint(0, VOCAB, (CLASSES, 30))  # each class's telling words

for step in range(args.steps):
    labels = torch.randint(0, CLASSES, (64,))
    lengths = torch.randint(8, 40, (64,))
    docs = [torch.cat([keywords[c][torch.randint(0, 30, (int(n) // 3,))],
                       torch.randint(0, VOCAB, (int(n) - int(n) // 3,))])
            for c, n in zip(labels, lengths)]
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    loss = criterion(model(torch.cat(docs), offsets), labels)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.1)
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
