"""torchvision ResNet-18 (untrained, in-place ReLU), 32x32 inputs, batch 32, SGD."""
import torch
import torch.nn.functional as F
import torchvision

from fidelity_util import dump, parse, report


def main():
    args = parse(lambda p: p.add_argument("--batch", type=int, default=32))
    torch.manual_seed(args.seed)
    model = torchvision.models.resnet18(num_classes=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    dump(args, model, "w_init")
    for step in range(args.steps):
        x = torch.randn(args.batch, 3, 32, 32)
        y = torch.randint(0, 10, (args.batch,))
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
