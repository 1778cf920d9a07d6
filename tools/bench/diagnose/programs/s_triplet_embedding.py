"""Metric learning: an embedding network trained with nn.TripletMarginLoss.

Mirrors face/person re-identification style training: an MLP maps inputs
to L2-normalised 32-d embeddings, each batch holds (anchor, positive,
negative) triplets (positive from the anchor's class, negative from
another), and the hinge loss max(d(a,p) - d(a,n) + margin, 0) is
minimised with Adam. Easy triplets contribute zero loss and zero gradient.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class EmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 32))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


def sample_triplets(labels, n, num_classes):
    """Indices of anchors, positives (same class) and negatives (another class)."""
    by_class = [torch.nonzero(labels == c).flatten() for c in range(num_classes)]
    a_cls = torch.randint(0, num_classes, (n,))
    n_cls = (a_cls + torch.randint(1, num_classes, (n,))) % num_classes
    pick = lambda cls: torch.stack([by_class[c][torch.randint(0, len(by_class[c]), (1,))][0] for c in cls.tolist()])
    return pick(a_cls), pick(a_cls), pick(n_cls)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    num_classes = 10
    centers = torch.randn(num_classes, 64)
    labels = torch.randint(0, num_classes, (2000,))
    x = centers[labels] + 1.5 * torch.randn(2000, 64)
    model = EmbeddingNet()
    criterion = nn.TripletMarginLoss(margin=0.5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    for step in range(args.steps):
        a, pos, neg = sample_triplets(labels, 64, num_classes)
        loss = criterion(model(x[a]), model(x[pos]), model(x[neg]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
