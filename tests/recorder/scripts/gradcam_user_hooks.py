"""A CNN whose forward uses autograd hooks the way user code does:
retain_grad() on an activation, Tensor.register_hook on another (a hook that
also rescales the gradient), a grad_fn hook, a full backward hook on a module,
a hook on a leaf parameter and a custom autograd.Function (pure backward). Each step prints the fidelity_util line and
then what the hooks saw (call counts and exact gradient sums), so running it
with and without tvis must print the same lines.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import parse, report


class Shift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + 0.25

    @staticmethod
    def backward(ctx, g):
        return g


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4, 4)
        self.seen = []
        self.kept = None

    def tensor_hook(self, g):
        self.seen.append(("tensor", repr(g.double().sum().item())))
        return g * 0.5

    def node_hook(self, grad_inputs, grad_outputs):
        self.seen.append(("node", repr(grad_outputs[0].double().sum().item())))

    def forward(self, x):
        a = F.relu(self.bn1(self.conv1(x)))
        a.retain_grad()
        self.kept = a
        b = self.conv2(a)
        b.register_hook(self.tensor_hook)
        b.grad_fn.register_hook(self.node_hook)
        return self.fc(F.adaptive_avg_pool2d(Shift.apply(F.relu(b)), 2).flatten(1))


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = Net()
    model.conv1.register_full_backward_hook(
        lambda m, gi, go: model.seen.append(("module", repr(go[0].double().sum().item()))))
    model.conv1.weight.register_hook(lambda g: model.seen.append(("leaf", repr(g.double().sum().item()))))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(args.steps):
        x = torch.randn(4, 3, 8, 8)
        y = torch.randint(0, 4, (4,))
        opt.zero_grad(set_to_none=True)
        model.seen = []
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)
        print("hooks %d %s retained %r" % (len(model.seen), model.seen, model.kept.grad.double().sum().item()),
              flush=True)


if __name__ == "__main__":
    main()
