"""torch.compile(model) in a plain loop (the default inductor backend, or
--backend): the module tree lives inside the compiled wrapper
(model._orig_mod), and hooks cannot see inside the compiled graph."""
import torch
import torch.nn.functional as F

import loop_util


def main():
    args = loop_util.parse(lambda p: p.add_argument("--backend", default="inductor"))
    loop_util.announce("torch.compile", torch.__version__)
    torch.manual_seed(args.seed)
    x, y = loop_util.pictures(64, 8, 4, args.seed)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(2),
                              torch.nn.Flatten(), torch.nn.Linear(32, 4))
    model = torch.compile(net, backend=args.backend)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(args.steps):
        xb, yb = x[step * 8:(step + 1) * 8], y[step * 8:(step + 1) * 8]
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loop_util.report(step, loss, net)


if __name__ == "__main__":
    main()
