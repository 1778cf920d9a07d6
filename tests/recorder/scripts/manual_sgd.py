"""No torch.optim: a hand-written SGD update after each backward."""
import torch
import torch.nn as nn

from fidelity_util import dump, dump_grads, parse, report


def sgd_update(model, lr):
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
            p.grad = None


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Dropout(0.2), nn.Linear(32, 3))
    dump(args, model, "w_init")
    for step in range(args.steps):
        x = torch.randn(16, 10)
        y = torch.randint(0, 3, (16,))
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        dump_grads(args, model.named_parameters(), "g_step%d" % step)  # the update clears them
        sgd_update(model, 0.1)
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
