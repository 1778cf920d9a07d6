"""A DataLoader with 2 real worker processes (the test turns the pipeline
capture off): each worker writes its pid to argv[1]/worker_<id>.pid."""
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


def note_pid(worker_id):
    with open(os.path.join(sys.argv[1], "worker_%d.pid" % worker_id), "w") as f:
        f.write(str(os.getpid()))


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
    loader = DataLoader(data, batch_size=8, num_workers=2, worker_init_fn=note_pid)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %r" % (step, loss.item()))


if __name__ == "__main__":
    main()
