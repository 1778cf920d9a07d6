"""timm models built with pretrained=False (a ResNet and a ViT) in a plain
loop, the pictures through torchvision's v2 transforms."""
import timm
import torch
import torch.nn.functional as F
from torchvision.transforms import v2

import loop_util


class Pictures(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        self.x, self.y = loop_util.pictures(n, 40, 4, seed)
        self.tf = v2.Compose([v2.RandomCrop(32), v2.RandomHorizontalFlip(),
                              v2.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25])])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.tf(self.x[i]), self.y[i]


def main():
    args = loop_util.parse(lambda p: p.add_argument("--model", default="resnet18"))
    loop_util.announce("timm", timm.__version__)
    torch.manual_seed(args.seed)
    if args.model == "vit":
        model = timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=8, num_classes=4,
                                  depth=2)
    else:
        model = timm.create_model("resnet18", pretrained=False, num_classes=4)
    loader = torch.utils.data.DataLoader(Pictures(64, args.seed), batch_size=8, shuffle=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    for step, (x, y) in enumerate(loader):
        if step == args.steps:
            break
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loop_util.report(step, loss, model)


if __name__ == "__main__":
    main()
