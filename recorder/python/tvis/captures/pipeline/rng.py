"""The process-global random streams a DataLoader worker owns, as values.

A real DataLoader worker (torch/utils/data/_utils/worker.py, torch 1.13)
seeds three global streams at start: torch's CPU default generator and
Python's ``random`` with ``base_seed + worker_id``, NumPy's legacy global
RandomState with ``_generate_state(base_seed, worker_id)``. ``Streams`` holds
those three states; ``Streams.seeded`` builds a worker's initial states
without touching the globals, ``capture``/``apply`` read and write the
globals. Swapping a worker's Streams in and the main process's back out
around the work done "in" that worker keeps every stream exactly as with
real worker processes.

``CudaSeedGuard`` undoes what worker code can do to the main process's CUDA
generators (``torch.manual_seed`` also seeds CUDA, lazily when CUDA is not
initialized).

``encode_numpy``/``encode_python`` turn a NumPy or ``random`` state into an
int64 tensor for the recorder (layout below); ``numpy_state_from`` and
``python_state_from`` turn such a tensor back into a state (tests, viewers).

Contract: nothing here draws from any global stream; ``capture`` and the
encoders only read.
"""

import random
import struct

import numpy as np
import torch
from torch.utils.data._utils.worker import _generate_state


class Streams:
    """States of torch's CPU default generator, ``random`` and NumPy's global RandomState."""

    __slots__ = ("torch", "python", "numpy")

    def __init__(self, torch_state, python_state, numpy_state):
        self.torch = torch_state
        self.python = python_state
        self.numpy = numpy_state

    @classmethod
    def capture(cls):
        return cls(torch.get_rng_state(), random.getstate(), np.random.get_state())

    @classmethod
    def seeded(cls, base_seed, worker_id):
        """The states a real worker has right after seeding (before worker_init_fn)."""
        seed = base_seed + worker_id
        g = torch.Generator()
        g.manual_seed(seed)
        py = random.Random(seed).getstate()
        nps = np.random.RandomState(_generate_state(base_seed, worker_id)).get_state()
        return cls(g.get_state(), py, nps)

    def apply(self):
        torch.set_rng_state(self.torch)
        random.setstate(self.python)
        np.random.set_state(self.numpy)


class Snapshot:
    """The three streams before a call, to tell afterwards which ones it drew from."""

    __slots__ = ("streams",)

    def __init__(self):
        self.streams = Streams.capture()

    def changed(self):
        now = Streams.capture()
        out = []
        if not torch.equal(now.torch, self.streams.torch):
            out.append("torch")
        if now.python != self.streams.python:
            out.append("random")
        a, b = now.numpy, self.streams.numpy
        if a[2:] != b[2:] or not np.array_equal(a[1], b[1]):
            out.append("numpy")
        return out


class CudaSeedGuard:
    """Saves the main process's CUDA generator states (or the seeds queued for
    CUDA's lazy initialization) and puts them back."""

    def __init__(self):
        self.initialized = torch.cuda.is_initialized()
        if self.initialized:
            self.states = [g.get_state() for g in torch.cuda.default_generators]
        else:
            t = torch.cuda._lazy_seed_tracker
            self.lazy = (t.manual_seed_all_cb, t.manual_seed_cb, list(t.call_order))
            self.queued = len(torch.cuda._queued_calls)

    def restore(self):
        """Puts the states back; False when worker code initialized CUDA (then
        the lazily queued seeds already ran and cannot be taken back)."""
        if self.initialized:
            for g, s in zip(torch.cuda.default_generators, self.states):
                g.set_state(s)
            return True
        if torch.cuda.is_initialized():
            return False
        t = torch.cuda._lazy_seed_tracker
        t.manual_seed_all_cb, t.manual_seed_cb, order = self.lazy
        t.call_order = order
        del torch.cuda._queued_calls[self.queued:]
        return True


# Encoded layouts (int64 tensors):
#   numpy:  [key[0..623], pos, has_gauss, bits of cached_gaussian (float64 as int64)]
#   random: [version, internal[0..624], has gauss_next, bits of gauss_next]

def _bits(x):
    return struct.unpack("<q", struct.pack("<d", float(x)))[0]


def _float(bits):
    return struct.unpack("<d", struct.pack("<q", int(bits)))[0]


def encode_numpy(state):
    _, keys, pos, has_gauss, gauss = state
    tail = [int(pos), int(has_gauss), _bits(gauss)]
    return torch.tensor([int(k) for k in keys] + tail, dtype=torch.int64)


def numpy_state_from(t):
    v = [int(x) for x in t.tolist()]
    return ("MT19937", np.array(v[:624], dtype=np.uint32), v[624], v[625], _float(v[626]))


def encode_python(state):
    version, internal, gauss_next = state
    tail = [0, 0] if gauss_next is None else [1, _bits(gauss_next)]
    return torch.tensor([int(version)] + list(internal) + tail, dtype=torch.int64)


def python_state_from(t):
    v = [int(x) for x in t.tolist()]
    gauss = _float(v[-1]) if v[-2] else None
    return (v[0], tuple(v[1:-2]), gauss)
