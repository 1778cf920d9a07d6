import torch
from torch import nn

import services


class GoodNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x) * services.SCALE


class TwoBlocks(nn.Module):
    """Two branches joined by a functional op: the graph keeps both edges."""

    def __init__(self):
        super().__init__()
        self.left = nn.Linear(4, 3)
        self.right = nn.Linear(4, 3)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(3, 2))

    def forward(self, x):
        return self.head(self.left(x) + self.right(x))


class SleepNet(nn.Module):
    def forward(self, x):
        import time
        time.sleep(60)
        return x


class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x, mask):
        return self.fc(x) * mask


class SameTensor(nn.Module):
    """Fails unless the input factory's repeated reference arrives as one tensor."""

    def forward(self, a, b):
        assert a is b, "the repeated tensor reference was not preserved"
        return a + 1


class LinearMismatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.stem(x)))


class MatmulMismatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(8, 2))

    def forward(self, x):
        return x @ self.w


class BmmMismatch(nn.Module):
    def forward(self, q, k):
        return torch.bmm(q, k)


class ConvChannels(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        return self.conv(x)


class EmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, ids):
        return self.emb(ids)


class Misleading(nn.Module):
    """Catches the real matmul failure and raises an invented expected shape."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        try:
            return self.fc(x)
        except RuntimeError:
            raise ValueError("expected input of shape [7, 7]: mat1 and mat2 shapes cannot be multiplied (7x7 and 9x9)")


class MisleadingNoOp(nn.Module):
    """Raises shape-like text with no operator failing: stays a generic failure."""

    def forward(self, x):
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied (5x5 and 6x6)")


class AssertNet(nn.Module):
    def forward(self, x):
        assert x.shape[1] == 5, "need 5 features"
        return x


class NeedsCheckpoint(nn.Module):
    def __init__(self, path="weights/missing.pt"):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.fc.load_state_dict(torch.load(path))

    def forward(self, x):
        return self.fc(x)


class Configurable(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(4, width)

    def forward(self, x):
        return self.fc(x)


def graph_inputs():
    return {"x": torch.ones(2, 4), "mask": torch.zeros(2, 2)}


def positional_inputs():
    t = torch.ones(3)
    return {"args": (t, t), "kwargs": {}}


def not_a_dict():
    return [torch.ones(2, 4)]


def raising_inputs():
    raise KeyError("no such dataset split")
