"""A tiny regression trained slowly: each step waits SECONDS (argv[1],
default 1) before it fetches its batch, as a slow data pipeline would, so a
run recorded from it grows for a while (tests/e2e/test_live.sh). Prints
`step K loss L` after each optimizer step, flushed: the test counts these
lines as the script's own record of the steps it trained."""
import sys
import time

import torch
import torch.nn as nn


def main():
    pause = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    step = 0
    for _ in range(100):
        for xb, yb in data:
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            print("step %d loss %r" % (step, loss.item()), flush=True)
            step += 1
            time.sleep(pause)


if __name__ == "__main__":
    main()
