"""Replay's reference run: a small CNN on fixed random RGB pictures (PIL
images through Resize -> ToTensor -> Normalize), a DataLoader without
shuffling, SGD. Forward hooks keep, for every step, the first rows of
each layer's output and their statistics; tensor hooks keep the gradients
dL/d(output). After each optimizer step everything so far is saved with
torch.save(argv[1]) (tvis stops the script after the last recorded step,
so the file is rewritten each step). The Replay test (check_layer.py)
compares the viewer's On image map, Neurons order, Stats (the activation's
and the gradient's) and the diagram's colours with these.

With `repeat` as argv[2] the sampler repeats dataset index 0 at row 6 of
the second batch: followed sample 0 sits there in step 1, past the leading
rows a small `--max-elems` keeps of other tensors (test_replay.sh's
--max-elems case: an activation keeps the rows up to it).

    python followed_activation.py OUT.pt [repeat]
    tvis run --steps 3 followed_activation.py OUT.pt
"""
import sys

import numpy as np
import torch
import torch.nn as nn
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

ROWS_KEPT = 4  # rows of each batch the script keeps (the followed samples are among the first)


def stats_of(t):
    """The statistics tvis records of a tensor (whole batch), in float64."""
    o = t.detach().double()
    return {"mean": o.mean().item(), "std": o.std(unbiased=False).item(), "min": o.min().item(),
            "max": o.max().item(), "mean_abs": o.abs().mean().item(), "l2": o.norm().item()}


class Pictures(Dataset):
    def __init__(self, n=64):
        g = np.random.default_rng(0)
        self.images = [(g.random((20, 20, 3)) * 255).astype(np.uint8) for _ in range(n)]
        for k, im in enumerate(self.images):  # a bright square that moves: maps with structure
            y, x = 2 + (k * 3) % 12, 2 + (k * 5) % 12
            im[y:y + 6, x:x + 6] = 255
        self.labels = [k % 4 for k in range(n)]
        self.classes = ["ant", "bee", "cat", "dog"]  # the recorder names each sample's class by it
        self.transform = transforms.Compose([
            transforms.Resize((16, 16)),
            transforms.ToTensor(),
            transforms.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25)),
        ])

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.transform(Image.fromarray(self.images[i])), self.labels[i]


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.conv(x)) + x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.blocks = nn.Sequential(Block(8), Block(8))
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.head = nn.Linear(8 * 2 * 2, 4)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(torch.flatten(self.pool(x), 1))


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = Pictures()
    order = list(range(len(data)))
    if len(sys.argv) > 2 and sys.argv[2] == "repeat":
        order[14] = 0  # batch 1, row 6: dataset index 0, which sample 0 follows
    loader = DataLoader(data, batch_size=8, sampler=order)
    saved = {"activation": {}, "gradient": {}, "stats": {}, "grad_stats": {}, "losses": []}
    step = [0]

    def keep(name):
        def hook(module, inputs, output):
            s = step[0]
            saved["activation"].setdefault(s, {})[name] = output[:ROWS_KEPT].detach().clone()
            saved["stats"].setdefault(s, {})[name] = stats_of(output)
            if output.requires_grad:
                def grad_hook(g):
                    saved["gradient"].setdefault(s, {})[name] = g[:ROWS_KEPT].detach().clone()
                    saved["grad_stats"].setdefault(s, {})[name] = stats_of(g)
                output.register_hook(grad_hook)
        return hook

    for name, m in model.named_modules():
        if name:
            m.register_forward_hook(keep(name))
    for epoch in range(3):
        for x, y in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            saved["losses"].append(repr(loss.item()))
            torch.save(saved, out)
            print("step %d loss %s" % (step[0], repr(loss.item())), flush=True)
            step[0] += 1
            if step[0] >= 6:
                return


if __name__ == "__main__":
    main()
