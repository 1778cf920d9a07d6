"""PyTorch's examples/time_sequence_prediction shape: 2 LSTMCells + LBFGS.

Healthy. A Sequence model (LSTMCell -> LSTMCell -> Linear) learns to predict
the next sample of phase-shifted sine waves, trained with LBFGS(lr=0.8) and a
closure, as in the example (shorter waves, a narrower hidden state and
float32 instead of the example's float64, so it runs quickly). Each step runs
up to 20 inner iterations of the closure.
"""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
T, L, N = 5, 40, 32   # period scale, wave length, number of waves
x = torch.arange(L).unsqueeze(0) + torch.randint(-4 * T, 4 * T, (N, 1))
data = torch.sin(x / 1.0 / T)
train_input, train_target = data[3:, :-1], data[3:, 1:]


class Sequence(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input):
        outputs = []
        b = input.size(0)
        h_t = c_t = torch.zeros(b, self.hidden)
        h_t2 = c_t2 = torch.zeros(b, self.hidden)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            outputs.append(self.linear(h_t2))
        return torch.cat(outputs, dim=1)


seq = Sequence()
criterion = nn.MSELoss()
optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.8)

for step in range(args.steps):
    def closure():
        optimizer.zero_grad()
        loss = criterion(seq(train_input), train_target)
        loss.backward()
        return loss
    loss = optimizer.step(closure)
    print(f"step {step} loss {loss.item():.6f}")
