"""torchvision ResNet-18 (in-place ReLU, BatchNorm in train mode), batch 2 of
3x64x64, SGD with momentum. --cam-dump DIR saves each step's model state and
batch before its forward (step<k>.pt) for the test's reference Grad-CAM.
Prints the fidelity_util step lines.
"""
import os

import torch
import torch.nn.functional as F
import torchvision

from fidelity_util import parse, report


def main():
    def extra(p):
        p.add_argument("--batch", type=int, default=2)
        p.add_argument("--size", type=int, default=64)
        p.add_argument("--cam-dump", default="")
    args = parse(extra)
    torch.manual_seed(args.seed)
    model = torchvision.models.resnet18(num_classes=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(args.steps):
        x = torch.randn(args.batch, 3, args.size, args.size)
        y = torch.randint(0, 10, (args.batch,))
        if args.cam_dump:
            os.makedirs(args.cam_dump, exist_ok=True)
            torch.save({"state": model.state_dict(), "x": x, "y": y},
                       os.path.join(args.cam_dump, "step%d.pt" % step))
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
