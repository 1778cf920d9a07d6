"""A small CNN (two convs, ReLU not in place, no BatchNorm, no dropout: one
deterministic forward) on random 3x16x16 images from a DataLoader, SGD.

argv[1]: where to torch.save the reference: per step the model's state before
the forward and the batch (x, y), so the test recomputes Grad-CAM itself.
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def make_model():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 12, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(12, 5))


def main(ref_path):
    torch.manual_seed(0)
    images = torch.rand(48, 3, 16, 16)
    labels = torch.randint(0, 5, (48,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=16, shuffle=False)
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref = {"steps": []}
    for x, y in loader:
        ref["steps"].append({"state": {k: v.clone() for k, v in model.state_dict().items()}, "x": x, "y": y})
        torch.save(ref, ref_path)  # each step: tvis run --steps N stops the script after step N
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main(sys.argv[1])
