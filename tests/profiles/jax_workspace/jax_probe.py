"""Settings applied before the model's import, seen at import time and reported as output lengths:
Python's and NumPy's seeded draws, XLA's deterministic flag (1 = set), and the cwd's name length."""
import os
import random

import numpy
import jax.numpy as jnp

PY_DRAW = random.randint(1, 50)
NP_DRAW = int(numpy.random.randint(1, 50))
DETERMINISTIC = 1 if "--xla_gpu_deterministic_ops=true" in os.environ.get("XLA_FLAGS", "") else 2
CWD = len(os.path.basename(os.getcwd()))


def probe(x):
    return [jnp.zeros((PY_DRAW,)), jnp.zeros((NP_DRAW,)), jnp.zeros((DETERMINISTIC,)), jnp.zeros((CWD,)), x]
