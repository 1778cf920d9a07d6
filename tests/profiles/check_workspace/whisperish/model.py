"""A Whisper-like model whose constructor takes a ModelDimensions object."""
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class ModelDimensions:
    n_mels: int
    n_audio_state: int
    n_vocab: int
    n_text_state: int


class AudioEncoder(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.conv = nn.Conv1d(dims.n_mels, dims.n_audio_state, 3, padding=1)

    def forward(self, mel):
        return torch.relu(self.conv(mel)).transpose(1, 2)


class TextDecoder(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.token = nn.Embedding(dims.n_vocab, dims.n_text_state)
        self.out = nn.Linear(dims.n_text_state, dims.n_vocab)

    def forward(self, tokens, audio):
        x = self.token(tokens) + audio.mean(dim=1, keepdim=True)
        return self.out(x)


class Whisper(nn.Module):
    def __init__(self, dims: ModelDimensions):
        super().__init__()
        self.encoder = AudioEncoder(dims)
        self.decoder = TextDecoder(dims)

    def forward(self, mel, tokens):
        return self.decoder(tokens, self.encoder(mel))


class NotWhisper(Whisper):
    pass
