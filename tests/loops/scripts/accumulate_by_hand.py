"""Gradient accumulation written by hand: four micro-batches, each loss
divided by 4 before its backward, then one optimizer step."""
import torch
import torch.nn.functional as F

import loop_util

MICRO = 4


def main():
    args = loop_util.parse()
    loop_util.announce("torch", torch.__version__)
    torch.manual_seed(args.seed)
    x, y = loop_util.pictures(128, 8, 4, args.seed)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4, shuffle=True)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 8 * 8, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 4))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    step, total = 0, 0.0
    for i, (xb, yb) in enumerate(loader):
        loss = F.cross_entropy(model(xb), yb) / MICRO
        loss.backward()
        total += loss.item()
        if (i + 1) % MICRO == 0:
            opt.step()
            opt.zero_grad()
            loop_util.report(step, total, model)
            step, total = step + 1, 0.0
            if step == args.steps:
                break


if __name__ == "__main__":
    main()
