"""A dataset copied as forking a worker process copies it.

``fork_copy(obj)`` (a dataset, or a tuple of it and the callables that go
with it) is ``copy.deepcopy(obj)`` except for NumPy
memory-mapped arrays (``np.memmap`` and views of one), which stay the same
object: a forked worker shares the parent's file mapping too, so sharing is
what a fork does, and copying would read a whole file into memory. Objects
a fork can carry but deepcopy cannot (locks, open files, generators) make it
raise; the caller then keeps the real workers.

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
