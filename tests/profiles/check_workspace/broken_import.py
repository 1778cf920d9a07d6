import torch
from torch import nn

import a_module_that_is_not_installed  # noqa: F401


class Broken(nn.Module):
    def forward(self, x):
        return x
