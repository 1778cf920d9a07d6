"""A few SGD steps of GoodNet on constant data: what "tvis: Record This Script" records in the tests."""
import torch
from torch import nn

from audit_models import GoodNet

torch.manual_seed(0)
model = GoodNet()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 2)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
