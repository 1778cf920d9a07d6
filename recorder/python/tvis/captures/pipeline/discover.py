"""Which callables a dataset may apply to a sample, and where they live.

``discover(dataset)`` walks the dataset's instance attributes and returns
``[(callable, slots)]``: every callable object or function reachable from
them, where ``slots`` lists the places holding it as ``(owner, key)`` (an
attribute of an object, or an index into a list) so that a plain function can
be swapped for a recording wrapper and back.

Walked: the dataset's attributes; datasets inside it (``Subset.dataset``,
``ConcatDataset.datasets``); lists, tuples and dicts of at most MAX_ITEMS
entries; and the children of transform containers: anything with a list or
tuple ``transforms`` attribute (torchvision's Compose, RandomApply,
RandomChoice, RandomOrder and look-alikes), ``nn.Sequential``/``ModuleList``
children, and StandardTransform's ``transform``/``target_transform``. A
callable's own inner state (``Lambda.lambd``, a user class's fields) is not
walked: the callable is the step.

Left out: classes, modules, methods bound to a dataset (its own code), and
anything deeper than MAX_DEPTH. At most MAX_CALLABLES are returned.
Contract: reads attributes only (``vars()``), never calls anything.
"""

import types

import torch

MAX_DEPTH = 5
MAX_ITEMS = 64
MAX_CALLABLES = 64


def _attributes(obj):
    try:
        return list(vars(obj).items())
    except TypeError:  # no __dict__ (slots, C types)
        return []


def _is_dataset(obj):
    return isinstance(obj, torch.utils.data.Dataset)


def _children(obj):
    """(key, child) pairs of a transform container, or None when obj is none."""
    if isinstance(obj, (torch.nn.Sequential, torch.nn.ModuleList)):
        return list(obj._modules.items())
    ts = getattr(obj, "__dict__", {}).get("transforms")
    if isinstance(ts, (list, tuple)) and len(ts) <= MAX_ITEMS:
        return [(None, ts)]
    if type(obj).__name__ == "StandardTransform":
        return [(k, getattr(obj, k, None)) for k in ("transform", "target_transform")]
    return None


class _Walk:
    def __init__(self):
        self.found = {}   # id -> [callable, slots]
        self.seen = set()
        self.datasets = set()

    def add(self, fn, owner, key):
        entry = self.found.get(id(fn))
        if entry is None:
            if len(self.found) >= MAX_CALLABLES:
                return
            entry = self.found[id(fn)] = [fn, []]
        if owner is not None:
            entry[1].append((owner, key))

    def value(self, v, owner, key, depth):
        if v is None or depth > MAX_DEPTH or isinstance(v, (str, bytes, int, float, type, types.ModuleType)):
            return
        if _is_dataset(v):
            self.dataset(v, depth + 1)
            return
        if isinstance(v, (list, tuple)):
            if len(v) <= MAX_ITEMS and id(v) not in self.seen:
                self.seen.add(id(v))
                for i, x in enumerate(v):
                    self.value(x, v if isinstance(v, list) else None, i, depth + 1)
            return
        if isinstance(v, dict):
            if len(v) <= MAX_ITEMS and id(v) not in self.seen:
                self.seen.add(id(v))
                for k, x in list(v.items()):
                    self.value(x, v, k, depth + 1)
            return
        if isinstance(v, types.MethodType) and _is_dataset(v.__self__):
            return
        if not callable(v):
            return
        self.add(v, owner, key)
        kids = _children(v)
        if kids is None or id(v) in self.seen:
            return
        self.seen.add(id(v))
        for k, child in kids:
            if k is None:
                self.value(child, v, "transforms", depth + 1)
            elif isinstance(v, torch.nn.Module):
                self.value(child, None, k, depth + 1)
            else:
                self.value(child, v, k, depth + 1)

    def dataset(self, ds, depth):
        if id(ds) in self.datasets or depth > MAX_DEPTH:
            return
        self.datasets.add(id(ds))
        for k, v in _attributes(ds):
            self.value(v, ds, k, depth)


def discover(dataset):
    w = _Walk()
    w.dataset(dataset, 0)
    return [(fn, slots) for fn, slots in w.found.values()]
