"""A namesake of whisperish.model:Whisper in another module, no subclass of it:
a factory that returns it for that class is refused."""
from torch import nn


class Whisper(nn.Module):
    def forward(self, mel, tokens):
        return mel
