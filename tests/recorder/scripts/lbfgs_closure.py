"""The time-sequence-prediction shape: an LSTMCell model fitted to sine waves
with LBFGS, whose step() calls the closure (zero_grad, forward, loss,
backward) several times; after each step a test prediction of a 3-row batch
under no_grad, whose loss the step line also prints (logging after the step).

With --dump DIR: input.pt holds the training input (the rows the followed
samples must come from).
"""
import os

import torch
import torch.nn as nn

from fidelity_util import dump, parse, report


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 16)
        self.linear = nn.Linear(16, 1)

    def forward(self, x, future=0):
        h = torch.zeros(x.size(0), 16, dtype=x.dtype)
        c = torch.zeros(x.size(0), 16, dtype=x.dtype)
        outputs = []
        out = None
        for x_t in x.split(1, dim=1):
            h, c = self.lstm1(x_t, (h, c))
            out = self.linear(h)
            outputs.append(out)
        for _ in range(future):
            h, c = self.lstm1(out, (h, c))
            out = self.linear(h)
            outputs.append(out)
        return torch.cat(outputs, dim=1)


def main():
    args = parse()
    torch.manual_seed(args.seed)
    t = torch.arange(24, dtype=torch.float64).view(1, -1) + torch.randint(-8, 8, (12, 1)).double()
    data = torch.sin(t / 4.0)
    inp, target = data[3:, :-1], data[3:, 1:]
    test_input, test_target = data[:3, :-1], data[:3, 1:]
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        torch.save(inp, os.path.join(args.dump, "input.pt"))
    seq = Sequence().double()
    criterion = nn.MSELoss()
    optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.5, max_iter=4)
    dump(args, seq, "w_init")
    for step in range(args.steps):
        def closure():
            optimizer.zero_grad()
            out = seq(inp)
            loss = criterion(out, target)
            loss.backward()
            return loss

        loss = optimizer.step(closure)
        with torch.no_grad():
            pred = seq(test_input, future=2)
            test_loss = criterion(pred[:, :-2], test_target)
        print("test %d loss %r" % (step, test_loss.item()), flush=True)
        report(args, seq, step, loss)


if __name__ == "__main__":
    main()
