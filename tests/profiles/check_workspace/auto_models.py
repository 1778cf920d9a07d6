import torch
from torch import nn


class AutoLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.out = nn.Linear(3, 2)

    def forward(self, x):
        return self.out(self.fc(x))


class AutoConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return self.conv(x).mean(dim=(2, 3))


class AutoEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)

    def forward(self, ids):
        return self.emb(ids)


class AutoFails(nn.Module):
    """The first layer fixes [1, 4]; a later one does not fit: a failed guess."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.out = nn.Linear(5, 2)

    def forward(self, x):
        return self.out(self.fc(x))


class AutoVariadic(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, *xs):
        return self.fc(xs[0])


class AutoKeywordOnly(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, *, mask):
        return self.fc(x)


# tensorviz: input=3,4
class Declared(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
