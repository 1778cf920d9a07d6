"""A small CNN (conv, BatchNorm, dropout, linear) trained on random images on
CUDA with SGD + momentum: the single-process script of gpu_check.sh.

After every optimizer step it prints its loss, weights digest and time
(train_util.py). cuDNN is set deterministic so that two
plain runs train bit for bit alike; BatchNorm's running statistics and
dropout's CUDA generator are what a recorder's extra passes would disturb.
TVIS_GPU_CHECK_CPU=1: the same on the CPU (gpu_fidelity.py --cpu, a dry run)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from train_util import on_cpu, parse_args, train_step


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(self.drop(torch.flatten(x, 1)))


def main():
    args = parse_args()
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.manual_seed(args.seed)
    dev = torch.device("cpu" if on_cpu() else "cuda")
    data = torch.Generator().manual_seed(1234)
    batches = [(torch.randn(32, 3, 32, 32, generator=data).to(dev), torch.randint(0, 10, (32,), generator=data).to(dev))
               for _ in range(4)]
    model = Net().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(args.steps):
        x, y = batches[step % len(batches)]
        train_step(step, model, opt, x, y, dev)


if __name__ == "__main__":
    main()
