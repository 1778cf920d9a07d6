"""A planted bug for "tvis diagnose" findings in the Problems panel: a validation
pass (model.eval()) before training and no model.train() after it, so every
training forward runs with Dropout off. The finding names the module `drop`; it
lands on the line of Net.forward that calls it (marked below)."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.drop, self.fc2 = nn.Linear(8, 16), nn.Dropout(0.5), nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))  # the finding's line


torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
model.eval()
with torch.no_grad():
    model(torch.randn(16, 8))  # the validation pass that leaves eval mode on
for step in range(3):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
