"""Import-time randomness: the profile's seed must be applied before this import."""
import torch
from torch import nn

N = int(torch.randint(1, 50, (1,)).item())


class SeededShape(nn.Module):
    def forward(self, x):
        return torch.zeros(N)


class Deep(nn.Module):
    """40 layers: its graph outgrows a 1 KiB max_capture_bytes."""

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Linear(4, 4) for _ in range(40)])

    def forward(self, x):
        return self.layers(x)
