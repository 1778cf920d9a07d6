"""Small graph attention network (GAT, Velickovic et al.) written by hand.

Healthy. pyGAT's dense formulation: per head, e_ij = LeakyReLU(a_src . Wh_i +
a_dst . Wh_j), masked to -inf where there is no edge, softmax over each
node's neighbours (self-loops included), dropout on the attention; 4 heads of
8 units concatenated with ELU, then a single-head output layer; Adam lr 5e-3
weight_decay 5e-4, full-batch, loss on the training nodes only. The graph is
a synthetic 150-node stochastic block model with 3 communities.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
N, C, F_IN = 150, 3, 32
y = torch.randint(0, C, (N,))
same = y.unsqueeze(0) == y.unsqueeze(1)
A = torch.triu((torch.rand(N, N) < torch.where(same, 0.1, 0.01)).float(), 1)
adj = (A + A.t() + torch.eye(N)) > 0
x = torch.randn(C, F_IN)[y] * 0.5 + torch.randn(N, F_IN)
train_mask = torch.rand(N) < 0.3


class GATLayer(nn.Module):
    def __init__(self, fin, fout, heads, dropout=0.6):
        super().__init__()
        self.W = nn.Linear(fin, heads * fout, bias=False)
        self.a_src = nn.Parameter(torch.empty(heads, fout))
        self.a_dst = nn.Parameter(torch.empty(heads, fout))
        nn.init.xavier_uniform_(self.a_src)
        nn.init.xavier_uniform_(self.a_dst)
        self.heads, self.fout, self.dropout = heads, fout, dropout

    def forward(self, x, adj):
        h = self.W(x).view(-1, self.heads, self.fout)                    # N, H, F
        e_src = (h * self.a_src).sum(-1)                                 # N, H
        e_dst = (h * self.a_dst).sum(-1)
        e = F.leaky_relu(e_src.unsqueeze(1) + e_dst.unsqueeze(0), 0.2)  # N(i), N(j), H
        e = e.masked_fill(~adj.unsqueeze(-1), float("-inf"))
        att = F.dropout(torch.softmax(e, dim=1), self.dropout, self.training)
        return torch.einsum("ijh,jhf->ihf", att, h)                      # N, H, F


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = GATLayer(F_IN, 8, heads=4)
        self.layer2 = GATLayer(32, C, heads=1)

    def forward(self, x, adj):
        x = F.dropout(x, 0.6, self.training)
        x = F.elu(self.layer1(x, adj).flatten(1))
        x = F.dropout(x, 0.6, self.training)
        return self.layer2(x, adj).mean(1)


model = GAT()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=5e-4)
for step in range(args.steps):
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x, adj)[train_mask], y[train_mask])
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
