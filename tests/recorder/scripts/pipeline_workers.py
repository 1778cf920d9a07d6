"""Training through a DataLoader whose pipeline draws from every global stream.

A tiny RGB image dataset (made from a fixed NumPy seed) goes through
RandomRotation (torch stream, on PIL images), NumpyJitter (NumPy and
`random` streams, PIL -> ndarray), ToTensor and Normalize; worker_init_fn
reseeds NumPy/`random` from torch.initial_seed() (the pattern torch's docs
recommend) and sets a per-worker brightness on its dataset copy through
get_worker_info(); each item also carries the thread count its worker sees.
The model has dropout (main torch stream), and every step line also prints
draws from the main process's torch, `random` and NumPy streams and its
thread count: any leak of worker state into the main process shows.

    python pipeline_workers.py [--workers N] [--persistent] [--iterable]
        [--sampler shuffle|sequential|mirror|global] [--epochs E] [--steps S] [--lock]
        [--break-after B] [--collate-method]

--lock gives the dataset a threading.Lock (a fork copies it, copy.deepcopy
cannot: tvis must leave such a loader to its real workers).

Step lines: `step <k> loss <repr> weights <digest> main <draws> threads <n> item_threads <n>`.
"""
import os
import random
import sys
import threading

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset, IterableDataset, Sampler, get_worker_info
from torchvision import transforms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity_util  # noqa: E402

N_ITEMS = 40
SIZE = 12


class NumpyJitter:
    """PIL image -> float32 HWC array: noise from NumPy, a flip decided by `random`."""

    def __init__(self, scale=0.05):
        self.scale = scale

    def __call__(self, img):
        arr = np.asarray(img, dtype=np.float32) / 255.0
        arr = arr + np.random.normal(0.0, self.scale, arr.shape).astype(np.float32)
        if random.random() < 0.5:
            arr = arr[:, ::-1, :]
        return np.ascontiguousarray(arr)

    def __repr__(self):
        return "NumpyJitter(scale=%s)" % self.scale


def pipeline():
    return transforms.Compose([
        transforms.RandomRotation(25),
        NumpyJitter(),
        transforms.ToTensor(),
        transforms.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25)),
    ])


def images():
    rs = np.random.RandomState(1234)
    return rs.randint(0, 256, size=(N_ITEMS, SIZE, SIZE, 3)).astype(np.uint8), rs.randint(0, 3, size=N_ITEMS)


class Pictures(Dataset):
    def __init__(self, lock=False):
        if lock:  # a fork copies it, copy.deepcopy cannot
            self.lock = threading.Lock()
        self.images, self.labels = images()
        self.transform = pipeline()
        self.brightness = 0
        self.classes = ["red", "green", "blue"]

    def __len__(self):
        return N_ITEMS

    def collate(self, items):
        """A collate_fn bound to the dataset: a worker's own copy (brightness set by its worker_init_fn)."""
        x, y, t = torch.utils.data.default_collate(items)
        return x * (1.0 + self.brightness / 100.0), y, t

    def __getitem__(self, i):
        img = Image.fromarray(np.clip(self.images[i].astype(np.int32) + self.brightness, 0, 255).astype(np.uint8))
        return self.transform(img), int(self.labels[i]), torch.get_num_threads()


class PictureStream(IterableDataset):
    """Each worker yields its own shard (uneven: 21 and 19 items for 2 workers)."""

    def __init__(self):
        self.images, self.labels = images()
        self.transform = pipeline()
        self.brightness = 0
        self.classes = ["red", "green", "blue"]

    def __iter__(self):
        info = get_worker_info()
        lo, hi = 0, N_ITEMS
        if info is not None:
            cut = N_ITEMS // 2 + 1
            lo, hi = (0, cut) if info.id == 0 else (cut, N_ITEMS)
        for i in range(lo, hi):
            img = Image.fromarray(np.clip(self.images[i].astype(np.int32) + self.brightness, 0, 255).astype(np.uint8))
            yield self.transform(img), int(self.labels[i]), torch.get_num_threads()


class MirrorSampler(Sampler):
    """0..n-1 then n-1..0: the last batch holds the first batch's samples at other rows."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(list(range(self.n)) + list(range(self.n - 1, -1, -1)))

    def __len__(self):
        return 2 * self.n


class GlobalDrawSampler(Sampler):
    """Each index drawn from the global torch stream when it is asked for:
    how many indices are taken when (prefetching) shows in the main stream."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for _ in range(self.n):
            yield int(torch.randint(self.n, (1,)))

    def __len__(self):
        return self.n


def seed_worker(worker_id):
    seed = torch.initial_seed() % 2 ** 32
    np.random.seed(seed)
    random.seed(seed)
    get_worker_info().dataset.brightness = 10 * (worker_id + 1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(self.drop(torch.flatten(x, 1)))


def loader(args):
    ds = PictureStream() if args.iterable else Pictures(args.lock)
    kw = dict(batch_size=8, num_workers=args.workers)
    if args.workers:
        kw.update(worker_init_fn=seed_worker, persistent_workers=args.persistent)
    if args.collate_method:
        kw["collate_fn"] = ds.collate
    if not args.iterable:
        if args.sampler == "shuffle":
            kw["shuffle"] = True
        elif args.sampler == "global":
            kw["sampler"] = GlobalDrawSampler(N_ITEMS)
        elif args.sampler == "mirror":
            kw["sampler"] = MirrorSampler(16)
    return DataLoader(ds, **kw)


def main():
    def extra(p):
        p.add_argument("--workers", type=int, default=2)
        p.add_argument("--persistent", action="store_true")
        p.add_argument("--iterable", action="store_true")
        p.add_argument("--sampler", default="shuffle", choices=["shuffle", "sequential", "mirror", "global"])
        p.add_argument("--epochs", type=int, default=3)
        p.add_argument("--threads", type=int, default=2)
        p.add_argument("--lock", action="store_true")
        p.add_argument("--collate-method", action="store_true", help="collate_fn=dataset.collate")
        p.add_argument("--break-after", type=int, default=0, help="leave each epoch after this many batches")

    args = fidelity_util.parse(extra)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    fidelity_util.dump(args, model, "w_init")
    data = loader(args)
    step = 0
    for _ in range(args.epochs):
        for batch_no, (x, y, item_threads) in enumerate(data):
            if args.break_after and batch_no == args.break_after:
                break
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            main_draws = (torch.rand(1).item(), random.random(), float(np.random.rand()))
            print("step %d loss %r weights %s main %r threads %d item_threads %d"
                  % (step, loss.item(), fidelity_util.digest(model), main_draws, torch.get_num_threads(),
                     int(item_threads.max())), flush=True)
            fidelity_util.dump(args, model, "w_step%d" % step)
            step += 1
            if step >= args.steps:
                return


if __name__ == "__main__":
    main()
