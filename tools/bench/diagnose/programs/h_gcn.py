"""Two-layer GCN (Kipf & Welling) written by hand, full-batch node classification.

Healthy. The pygcn / PyG gcn.py recipe without the library: symmetric
normalised adjacency D^-1/2 (A + I) D^-1/2 as a sparse tensor, nn.Linear
weights, ReLU + dropout between layers, cross-entropy on the training mask
only, AdamW lr 1e-2 weight_decay 5e-4. The graph is a synthetic 200-node
stochastic block model with 4 communities and row-normalised bag-of-words
features (as Cora's are).
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
N, C, F_IN = 200, 4, 100
y = torch.randint(0, C, (N,))
same = y.unsqueeze(0) == y.unsqueeze(1)
A = (torch.rand(N, N) < torch.where(same, 0.08, 0.005)).float()
A = torch.triu(A, 1)
A = A + A.t() + torch.eye(N)
deg_inv_sqrt = A.sum(1).pow(-0.5)
adj = (deg_inv_sqrt.unsqueeze(1) * A * deg_inv_sqrt.unsqueeze(0)).to_sparse()

word_prob = torch.rand(C, F_IN) * 0.1            # each class favours some words
x = (torch.rand(N, F_IN) < word_prob[y] + 0.02).float()
x = x / x.sum(1, keepdim=True).clamp(min=1)

train_mask = torch.zeros(N, dtype=torch.bool)
train_mask[torch.randperm(N)[:60]] = True


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout=0.5):
        super().__init__()
        self.lin1 = nn.Linear(nfeat, nhid)
        self.lin2 = nn.Linear(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, self.training)
        x = F.relu(torch.sparse.mm(adj, self.lin1(x)))
        x = F.dropout(x, self.dropout, self.training)
        return torch.sparse.mm(adj, self.lin2(x))


model = GCN(F_IN, 64, C)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=5e-4)
for step in range(args.steps):
    model.train()
    optimizer.zero_grad()
    out = model(x, adj)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    loss.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        val_acc = (model(x, adj).argmax(1)[~train_mask] == y[~train_mask]).float().mean()
    print(f"step {step} loss {loss.item():.4f} val_acc {val_acc:.3f}")
