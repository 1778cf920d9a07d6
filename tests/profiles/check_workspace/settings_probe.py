"""What the worker applied before it imported this module, reported through
output shapes (tvis check reports shapes, not values): each output's length
encodes one setting, and the test computes the expected lengths itself."""
import os
import random

import numpy
import torch
from torch import nn

PY_DRAW = random.randint(1, 50)             # Python's random, seeded before the import
NP_DRAW = int(numpy.random.randint(1, 50))  # NumPy's, seeded with the seed's low 32 bits
CWD_AT_IMPORT = os.path.basename(os.getcwd())  # the profile's cwd, set before the import


def code(t):
    """1..97 from a tensor's values: which generator (and seed) made them."""
    return int(t.double().abs().sum().item() * 1000) % 97 + 1


class SettingsProbe(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x, y):
        h = self.fc(x)
        return (torch.zeros(PY_DRAW), torch.zeros(NP_DRAW),
                torch.zeros(1 + int(torch.are_deterministic_algorithms_enabled())),
                torch.zeros(len(CWD_AT_IMPORT)),
                torch.zeros(1 + int(torch.is_grad_enabled() and h.requires_grad)),
                torch.zeros(code(x)), torch.zeros(code(y)))
