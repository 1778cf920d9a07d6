"""A tabular MLP with categorical embeddings and BatchNorm1d, trained with NAdam.

Held-out healthy program. Mirrors the fastai-style tabular model
(TabularModel / the "entity embeddings" recipe): one nn.Embedding per
categorical column (size min(50, (cardinality + 1) // 2)), embedding
dropout, continuous columns standardised and passed through BatchNorm1d,
then Linear-ReLU-BatchNorm1d-Dropout blocks (200, 100) and a binary
logit; BCEWithLogits, torch.optim.NAdam lr 2e-3, weight decay 1e-5. The
data: a synthetic census-like table (5 categorical, 6 continuous columns).
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)
CARDS, N_CONT, N = [9, 16, 7, 15, 42], 6, 20000

# The table: categorical codes, skewed continuous columns, a label from both.
cats = torch.stack([torch.randint(0, c, (N,)) for c in CARDS], 1)
cont = torch.randn(N, N_CONT).exp() * torch.tensor([40.0, 1e4, 10.0, 1.0, 5.0, 300.0])
cat_effect = sum(torch.randn(c)[cats[:, i]] for i, c in enumerate(CARDS))
logit = cat_effect + (cont.log() @ torch.randn(N_CONT)) * 0.5
labels = (logit + torch.randn(N) > logit.median()).float()
cont = (cont.log() - cont.log().mean(0)) / cont.log().std(0)  # log + standardise, as a preprocessing step


class TabularModel(nn.Module):
    def __init__(self, cards, n_cont, sizes=(200, 100)):
        super().__init__()
        self.embeds = nn.ModuleList(nn.Embedding(c, min(50, (c + 1) // 2)) for c in cards)
        self.emb_drop, self.bn_cont = nn.Dropout(0.04), nn.BatchNorm1d(n_cont)
        n_in, layers = sum(e.embedding_dim for e in self.embeds) + n_cont, []
        for n_out in sizes:
            layers += [nn.Linear(n_in, n_out), nn.ReLU(), nn.BatchNorm1d(n_out), nn.Dropout(0.1)]
            n_in = n_out
        self.layers, self.head = nn.Sequential(*layers), nn.Linear(n_in, 1)

    def forward(self, x_cat, x_cont):
        x = self.emb_drop(torch.cat([e(x_cat[:, i]) for i, e in enumerate(self.embeds)], 1))
        return self.head(self.layers(torch.cat([x, self.bn_cont(x_cont)], 1))).squeeze(1)


model = TabularModel(CARDS, N_CONT)
optimizer = torch.optim.NAdam(model.parameters(), lr=2e-3, weight_decay=1e-5)
model.train()
for step in range(args.steps):
    idx = torch.randint(0, N, (256,))
    loss = F.binary_cross_entropy_with_logits(model(cats[idx], cont[idx]), labels[idx])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
