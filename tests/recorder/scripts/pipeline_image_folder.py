"""torchvision ImageFolder over PNG files it writes once: the dataset's
`loader` function (a path in, a PIL image out) is part of the pipeline.

    python pipeline_image_folder.py ROOT [--workers N] [--steps S]
ROOT/<cat|dog>/<i>.png (6 per class, 9x9 RGB) are made when ROOT is missing.
Step lines: `step <k> loss <repr> r <main torch draw>`.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader
from torchvision import datasets, transforms as T


def make_images(root):
    rs = np.random.RandomState(0)
    for c in ("cat", "dog"):
        os.makedirs(os.path.join(root, c))
        for i in range(6):
            Image.fromarray(rs.randint(0, 255, (9, 9, 3), dtype=np.uint8)).save(os.path.join(root, c, "%d.png" % i))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("root")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    if not os.path.isdir(args.root):
        make_images(args.root)
    torch.manual_seed(0)
    ds = datasets.ImageFolder(args.root, transform=T.Compose([T.RandomResizedCrop(8), T.ToTensor()]))
    model = torch.nn.Linear(192, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step = 0
    while step < args.steps:
        for x, y in DataLoader(ds, batch_size=4, shuffle=True, num_workers=args.workers):
            opt.zero_grad()
            loss = F.cross_entropy(model(x.flatten(1)), y)
            loss.backward()
            opt.step()
            print("step %d loss %r r %r" % (step, loss.item(), torch.rand(1).item()), flush=True)
            step += 1
            if step >= args.steps:
                return


if __name__ == "__main__":
    main()
