# The model test_setup.sh sets up through the browser form: __init__ with
# annotated defaults, a forward with one required tensor and a keyword
# option, and a workspace function returning example inputs.
import torch
from torch import nn


class Mixer(nn.Module):
    def __init__(self, width: int = 8, depth: int = 2, act: str = "relu"):
        super().__init__()
        self.inp = nn.Linear(4, width)
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.out = nn.Linear(width, 3)
        self.act = nn.ReLU() if act == "relu" else nn.Tanh()

    def forward(self, x, scale: float = 1.0):
        h = self.act(self.inp(x))
        for block in self.blocks:
            h = self.act(block(h))
        return self.out(h) * scale


def example_inputs():
    return {"x": torch.ones(2, 4)}
