"""The script `accelerate launch --num_processes 2` runs on each rank (CPU,
gloo): `launch_accelerate.py STEPS`."""
import sys

import torch
from accelerate import Accelerator

import launch_report


def main():
    steps = int(sys.argv[1])
    acc = Accelerator(cpu=True)
    torch.manual_seed(0)
    model = launch_report.net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = launch_report.data(0)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    model, opt, loader = acc.prepare(model, opt, loader)
    for step, (xb, yb) in enumerate(loader):
        if step == steps:
            break
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        acc.backward(loss)
        opt.step()
        launch_report.report(acc.process_index, step, loss, model)


if __name__ == "__main__":
    main()
