"""CNN with dropout on the bundled digits, DataLoader with shuffling, SGD + StepLR."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch.utils.data import DataLoader, TensorDataset

from fidelity_util import dump, parse, report


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(self.drop(torch.flatten(x, 1)))


def main():
    args = parse()
    torch.manual_seed(args.seed)
    d = load_digits()
    ds = TensorDataset(torch.tensor(d.images / 16.0, dtype=torch.float32).unsqueeze(1), torch.tensor(d.target))
    loader = DataLoader(ds, batch_size=16, shuffle=True)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    crit = nn.CrossEntropyLoss()
    dump(args, model, "w_init")
    step = 0
    while True:
        for x, y in loader:
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            opt.step()
            sched.step()
            report(args, model, step, loss)
            step += 1
            if step >= args.steps:
                return


if __name__ == "__main__":
    main()
