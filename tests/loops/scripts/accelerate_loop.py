"""A plain loop under accelerate: Accelerator().prepare(model, optimizer,
loader), accelerator.backward, and its gradient accumulation context
(gradient_accumulation_steps=2: one optimizer step per two batches)."""
import accelerate
import torch
import torch.nn.functional as F
from accelerate import Accelerator

import loop_util


def main():
    args = loop_util.parse()
    loop_util.announce("accelerate", accelerate.__version__)
    accelerate.utils.set_seed(args.seed)
    x, y = loop_util.pictures(96, 8, 4, args.seed)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8, shuffle=True)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), torch.nn.Linear(32, 4))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    acc = Accelerator(cpu=True, gradient_accumulation_steps=2)
    model, opt, loader = acc.prepare(model, opt, loader)
    step, losses = 0, []
    for xb, yb in loader:
        with acc.accumulate(model):
            loss = F.cross_entropy(model(xb), yb)
            acc.backward(loss)
            opt.step()
            opt.zero_grad()
            losses.append(loss.detach())
        if acc.sync_gradients:
            loop_util.report(step, torch.stack(losses).mean(), model)
            step, losses = step + 1, []
            if step == args.steps:
                break


if __name__ == "__main__":
    main()
