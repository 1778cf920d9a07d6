"""Shared by the library-loop scripts (imported as a sibling module): the
step line every fidelity check compares, and token/picture data made here
(no data set or weights are downloaded).

Each script prints, after every optimizer step, one line
    step <k> loss <repr(loss)> weights <sha256 of all parameters>
where loss is what the library reports for that step (the mean over its
micro-batches where it accumulates), so a plain run and a recorded run can be
compared bit for bit. The library's version is printed first:
    library <name> <version> torch <version>
"""
import argparse
import hashlib
import os

import torch


def parse(extra=None):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    if extra:
        extra(p)
    return p.parse_args()


def dump_parameters(args, model, tag):
    """With ``--dump DIR`` (a script that adds it): saves ``model``'s named
    parameters as DIR/<tag>.pt (w_init before training, w_step<k> after step k)."""
    if getattr(args, "dump", ""):
        os.makedirs(args.dump, exist_ok=True)
        torch.save({n: p.detach().clone() for n, p in model.named_parameters()}, os.path.join(args.dump, tag + ".pt"))


def digest(*models):
    """sha256 of every parameter of `models`, in order."""
    h = hashlib.sha256()
    for model in models:
        for name, p in model.named_parameters():
            h.update(name.encode())
            h.update(p.detach().float().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:32]


def announce(name, version):
    print("library %s %s torch %s" % (name, version, torch.__version__), flush=True)


def report(step, loss, *models):
    loss = float(loss.item() if torch.is_tensor(loss) else loss)
    print("step %d loss %r weights %s" % (step, loss, digest(*models)), flush=True)


def token_rows(n, length, vocab, seed):
    """n rows of `length` token ids: a noisy counting pattern a small LM can learn."""
    g = torch.Generator().manual_seed(seed)
    start = torch.randint(0, vocab, (n, 1), generator=g)
    rows = (start + torch.arange(length)) % vocab
    noise = torch.rand(n, length, generator=g) < 0.1
    return torch.where(noise, torch.randint(0, vocab, (n, length), generator=g), rows)


def pictures(n, size, classes, seed, channels=3):
    """n float pictures in [0, 1] with labels: class c brightens stripe c."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, classes, (n,), generator=g)
    x = torch.rand(n, channels, size, size, generator=g) * 0.5
    stripe = size // classes
    for i, c in enumerate(labels.tolist()):
        x[i, :, c * stripe:(c + 1) * stripe, :] += 0.5
    return x.clamp(0, 1), labels
