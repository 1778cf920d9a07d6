"""A torchvision pipeline with the DataLoader options that change when RNG is drawn.

FakeData (its __getitem__ reseeds torch per index and puts the state back,
which also queues a CUDA seed), RandomApply(ColorJitter), RandomHorizontalFlip,
ToTensor, RandomErasing and a lambda; a target_transform lambda; a DataLoader
with its own generator, drop_last, a custom collate_fn and prefetch_factor 3
over 3 workers; a validation DataLoader with 1 worker iterated after every
step. Dropout in the model draws from the main torch stream.

    python pipeline_torchvision.py [--workers 3] [--steps 12]
Step lines: `step <k> loss <repr> val <repr> r <main torch draw>`.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms as T


def collate(items):
    xs, ys = zip(*items)
    return torch.stack(xs), torch.tensor(ys)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("--steps", type=int, default=12)
    args = p.parse_args()
    torch.manual_seed(0)
    tf = T.Compose([T.RandomApply([T.ColorJitter(0.4, 0.4)], p=0.5), T.RandomHorizontalFlip(), T.ToTensor(),
                    T.RandomErasing(p=0.5), lambda x: x * 2 - 1])
    train = datasets.FakeData(size=48, image_size=(3, 10, 10), num_classes=4, transform=tf,
                              target_transform=lambda y: y % 4)
    val = datasets.FakeData(size=16, image_size=(3, 10, 10), num_classes=4, transform=T.ToTensor(), random_offset=99)
    g = torch.Generator()
    g.manual_seed(7)
    extra = {"prefetch_factor": 3} if args.workers else {}
    tl = DataLoader(train, batch_size=6, shuffle=True, num_workers=args.workers, drop_last=True, collate_fn=collate,
                    generator=g, **extra)
    vl = DataLoader(val, batch_size=8, num_workers=min(args.workers, 1))
    model = nn.Sequential(nn.Flatten(), nn.Linear(300, 16), nn.Dropout(0.2), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    step = 0
    while step < args.steps:
        for x, y in tl:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            with torch.no_grad():
                v = sum(float(F.cross_entropy(model(a), b)) for a, b in vl)
            print("step %d loss %r val %r r %r" % (step, loss.item(), v, torch.rand(1).item()), flush=True)
            step += 1
            if step >= args.steps:
                return


if __name__ == "__main__":
    main()
