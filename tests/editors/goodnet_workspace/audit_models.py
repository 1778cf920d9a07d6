import torch
from torch import nn


class GoodNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class ShapeBug(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


class SlowNet(nn.Module):
    """Sleeps in forward while slow.flag exists beside this file (the cancellation test)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        import os
        import time
        if os.path.exists(os.path.join(os.path.dirname(__file__), "slow.flag")):
            time.sleep(30)
        return self.fc(x)
