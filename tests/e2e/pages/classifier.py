"""A small CNN classifier on fixed random 1x10x10 images, 5 classes, batch
24, SGD with momentum. After each step it saves (torch.save, argv[1]) what
the Loss and Weights pages must show (reference.py): the loss values, every
sample's p(target), -log p, loss and predicted class, the confusion matrix
over every batch so far, each parameter's weight / gradient / update
statistics, and the optimizer's lr. Prints `step k loss L`."""
import sys

import torch
import torch.nn as nn

import reference as ref


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.act = nn.ReLU()
        self.fc = nn.Linear(4 * 8 * 8, 5)

    def forward(self, x):
        return self.fc(torch.flatten(self.act(self.conv(x)), 1))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else ""
    torch.manual_seed(0)
    x = torch.randn(96, 1, 10, 10)
    y = torch.randint(0, 5, (96,))
    model = Net()
    lr = 0.05
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    saved = {"losses": [], "samples": {}, "confusion": [[0] * 5 for _ in range(5)], "params": {}, "lr": lr}
    for step in range(4):
        xb, yb = x[step * 24:(step + 1) * 24], y[step * 24:(step + 1) * 24]
        opt.zero_grad()
        logits = model(xb)
        loss = loss_fn(logits, yb)
        loss.backward()
        before = {n: p.detach().clone() for n, p in model.named_parameters()}
        grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
        opt.step()
        rows = ref.per_sample(logits, yb, step)
        saved["losses"].append(float(loss.detach().reshape(-1)[0].item()))
        saved["samples"][step] = rows
        for r in rows:
            saved["confusion"][r["target"]][r["predicted"]] += 1
        saved["params"][step] = ref.param_stats(model.named_parameters(), before, grads)
        saved["steps"] = step + 1
        ref.save(out, saved)
        print("step %d loss %r" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
