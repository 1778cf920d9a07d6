"""AdamW with a linear-warmup/linear-decay LambdaLR stepped per batch.

Healthy. The Hugging Face get_linear_schedule_with_warmup recipe written with
torch.optim.lr_scheduler.LambdaLR: lr rises linearly over the first 5 batches
(from lr/6, so no step is a no-op), then decays linearly to 0;
scheduler.step() runs once per optimizer step (per batch), the correct rate
for a warmup schedule. The model is an MLP classifier with LayerNorm and
gradient clipping at 1.0.
"""
import argparse

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
n, d, classes = 2048, 64, 8
x = torch.randn(n, d)
y = (x @ torch.randn(d, classes) + 0.5 * torch.randn(n, classes)).argmax(1)

model = nn.Sequential(
    nn.Linear(d, 128), nn.LayerNorm(128), nn.GELU(),
    nn.Linear(128, 128), nn.LayerNorm(128), nn.GELU(),
    nn.Linear(128, classes),
)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)

total_steps = max(args.steps, 50)
warmup_steps = 5


def lr_lambda(current_step):
    if current_step < warmup_steps:
        return float(current_step + 1) / float(warmup_steps + 1)
    return max(0.0, float(total_steps - current_step) / float(max(1, total_steps - warmup_steps)))


scheduler = LambdaLR(optimizer, lr_lambda)
criterion = nn.CrossEntropyLoss()
batch_size = 32
for step in range(args.steps):
    idx = torch.randint(0, n, (batch_size,))
    loss = criterion(model(x[idx]), y[idx])
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}")
