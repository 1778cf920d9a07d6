"""torchvision ResNet-18 fed by a real pipeline: FakeData images through
RandomRotation/RandomHorizontalFlip/ToTensor/Normalize, a DataLoader with 2
workers and shuffling, train-mode BatchNorm, SGD with momentum. Every tvis
capture applies here (pipeline, Grad-CAM, embeddings; no attention)."""
import torch
import torch.nn.functional as F
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms as T

from fidelity_util import dump, parse, report


def main():
    args = parse(lambda p: p.add_argument("--batch", type=int, default=8))
    torch.manual_seed(args.seed)
    tf = T.Compose([T.RandomRotation(15), T.RandomHorizontalFlip(), T.ToTensor(),
                    T.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))])
    data = torchvision.datasets.FakeData(size=64, image_size=(3, 32, 32), num_classes=10, transform=tf)
    loader = DataLoader(data, batch_size=args.batch, shuffle=True, num_workers=2)
    model = torchvision.models.resnet18(num_classes=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    dump(args, model, "w_init")
    step = 0
    while step < args.steps:
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            report(args, model, step, loss)
            step += 1
            if step == args.steps:
                break


if __name__ == "__main__":
    main()
