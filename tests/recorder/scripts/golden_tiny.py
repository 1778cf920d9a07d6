"""The script behind tests/data/golden_v1.tvis: a tiny CNN on 32 bundled digits,
two Adam steps. Regenerate (then the .json with `tvis inspect --json`):
    tvis run --steps 2 --max-elems 256 --samples 2 --out /tmp/g tests/recorder/scripts/golden_tiny.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.relu = nn.ReLU(inplace=True)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(self.relu(self.conv(x)), 2)
        return self.fc(torch.flatten(x, 1))


def batches(images, labels, size):
    for i in range(0, len(labels), size):
        yield images[i:i + size], labels[i:i + size]


def main():
    torch.manual_seed(0)
    d = load_digits()
    x = torch.tensor(d.images[:32] / 16.0, dtype=torch.float32).unsqueeze(1)
    y = torch.tensor(d.target[:32])
    model = Tiny()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step, (xb, yb) in enumerate(batches(x, y, 8)):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        print("step %d loss %r" % (step, loss.item()))


if __name__ == "__main__":
    main()
