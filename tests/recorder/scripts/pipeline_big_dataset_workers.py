"""A DataLoader with 4 workers over an in-memory TensorDataset of ~150 MB
(forked workers share it copy-on-write). Prints each step's loss and the
main process's peak resident memory in MB.
"""
import argparse
import resource

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(50000, 3, 16, 16), torch.randint(0, 3, (50000,)))
    loader = DataLoader(data, batch_size=8, num_workers=4, shuffle=True)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(4 * 14 * 14, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (x, y) in enumerate(loader):
        if step >= args.steps:
            break
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.8f" % (step, loss.item()), flush=True)
        print("rss_mb %d" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024), flush=True)


if __name__ == "__main__":
    main()
