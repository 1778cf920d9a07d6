"""A dataset copied as forking a worker process copies it.

``fork_copy(obj)`` (a dataset, or a tuple of it and the callables that go
with it) is ``copy.deepcopy(obj)`` except for NumPy
memory-mapped arrays (``np.memmap`` and views of one), which stay the same
object: a forked worker shares the parent's file mapping too, so sharing is
what a fork does, and copying would read a whole file into memory. Objects
a fork can carry but deepcopy cannot (locks, open files, generators) make it
raise; the caller then keeps the real workers.

``array_bytes(obj)`` is what those copies cost in tensors and arrays.

Contract: ``obj`` is only read. ``copy``'s dispatch table gains the
memmap entry for the duration of the call (the recorder runs this on the
thread that iterates the DataLoader) and loses it again.
"""

import copy

import numpy as np


def _same(x, memo):
    return x


def fork_copy(obj):
    table = copy._deepcopy_dispatch
    had = np.memmap in table
    prev = table.get(np.memmap)
    table[np.memmap] = _same
    try:
        return copy.deepcopy(obj)
    finally:
        if had:
            table[np.memmap] = prev
        else:
            del table[np.memmap]


def array_bytes(obj):
    """Bytes of the tensor storages and NumPy buffers ``fork_copy(obj)`` would
    copy (a fork shares them), measured by a deep copy that shares them instead."""
    import torch
    seen, total = set(), [0]

    def count(x, memo):
        try:
            if isinstance(x, torch.Tensor):
                key, size = ("t", x.storage().data_ptr()), x.storage().nbytes()
            else:
                base = x
                while isinstance(base.base, np.ndarray):
                    base = base.base
                key, size = ("a", id(base)), base.nbytes
        except Exception:  # noqa: BLE001: a tensor without storage (sparse, ...) is not counted
            return x
        if key not in seen:
            seen.add(key)
            total[0] += size
        return x

    table = copy._deepcopy_dispatch
    kinds = (torch.Tensor, torch.nn.Parameter, np.ndarray, np.memmap)
    saved = {k: table[k] for k in kinds if k in table}
    for k in kinds:
        table[k] = _same if k is np.memmap else count
    try:
        copy.deepcopy(obj)
    finally:
        for k in kinds:
            if k in saved:
                table[k] = saved[k]
            else:
                del table[k]
    return total[0]
