"""What the launcher scripts print after each optimizer step, one line per
rank and step: `rank R step S loss L weights D`, L the loss as repr(float)
and D a digest of the model's parameter bytes after the step (bit for bit)."""
import hashlib
import sys

import torch


def digest(module):
    h = hashlib.sha1()
    for p in module.parameters():
        h.update(p.detach().contiguous().cpu().numpy().tobytes())
    return h.hexdigest()[:16]


def report(rank, step, loss, module):
    # one write per line: the ranks share the console, and an unbuffered print writes the newline apart
    sys.stdout.write("rank %d step %d loss %r weights %s\n" % (rank, step, float(loss.detach()), digest(module)))
    sys.stdout.flush()


def data(rank, n=64, seed=1):
    """A tiny classification set of 6 features, 3 classes; each rank its own."""
    g = torch.Generator().manual_seed(seed + 100 * rank)
    return torch.randn(n, 6, generator=g), torch.randint(0, 3, (n,), generator=g)


def net():
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
