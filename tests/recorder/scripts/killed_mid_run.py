"""A CNN on the bundled digits trained for 3 steps, whose third step starts
with a long pause (data that takes long to arrive): a test SIGKILLs it there,
after 2 recorded steps. Prints `step k loss L` after each step (flushed) and
`waiting` when the pause begins."""
import sys
import time

import torch
import torch.nn as nn
from sklearn.datasets import load_digits


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.act = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.act(self.conv(x))), 1))


def main():
    torch.manual_seed(0)
    d = load_digits()
    x = torch.tensor(d.images[:96] / 16.0, dtype=torch.float32).unsqueeze(1)
    y = torch.tensor(d.target[:96])
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(3):
        if step == 2:
            print("waiting", flush=True)
            time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 120)
        xb, yb = x[step * 32:(step + 1) * 32], y[step * 32:(step + 1) * 32]
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        print("step %d loss %r" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
