"""A CSV pipeline that turns every label into class 0: the label string is compared with an int.

Bug (--bug): a churn classifier reads its rows with csv.DictReader, where
every field is a string. The dataset builds the label with
`1 if row["churned"] == 1 else 0`; "1" == 1 is False in Python, so every
target is 0, the model learns to say "no churn" and reports a fine accuracy
on the imbalanced validation set (StackOverflow "all labels are zero after
loading CSV", "model always predicts one class").
Twin: int(row["churned"]).
"""
import argparse
import csv
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
FIELDS = ["tenure", "monthly", "calls", "complaints", "plan"]

# the CSV file, as an export would write it
features = torch.randn(2000, len(FIELDS))
churned = (features[:, 3] - features[:, 0] + 0.5 * torch.randn(2000) > 0.8).long()
buffer = io.StringIO()
writer = csv.writer(buffer)
writer.writerow(FIELDS + ["churned"])
for row, c in zip(features.tolist(), churned.tolist()):
    writer.writerow([f"{v:.4f}" for v in row] + [c])


class ChurnSet(Dataset):
    def __init__(self, text):
        self.rows = list(csv.DictReader(io.StringIO(text)))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        x = torch.tensor([float(row[f]) for f in FIELDS])
        label = (1 if row["churned"] == 1 else 0) if args.bug else int(row["churned"])
        return x, label


loader = DataLoader(ChurnSet(buffer.getvalue()), batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(len(FIELDS), 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                      nn.Linear(32, 2))
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05)

step = 0
while step < args.steps:
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f} positives {int(y.sum())}/{len(y)}")
        step += 1
        if step == args.steps:
            break
