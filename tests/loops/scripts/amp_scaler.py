"""Mixed precision: torch.autocast (bfloat16 on the CPU) with a GradScaler
whose first scale is so large that the first step's gradients overflow: the
scaler skips that optimizer step (no update) and backs off, and the later
steps update as usual. Each iteration prints its line, skipped or not."""
import torch
import torch.nn.functional as F

import loop_util


def main():
    args = loop_util.parse()
    loop_util.announce("torch.amp", torch.__version__)
    torch.manual_seed(args.seed)
    x, y = loop_util.pictures(64, 8, 4, args.seed)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(2),
                                torch.nn.Flatten(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.005)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 127, backoff_factor=2.0 ** -110, growth_interval=1000)
    for step in range(args.steps):
        xb, yb = x[step * 8:(step + 1) * 8], y[step * 8:(step + 1) * 8]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(xb), yb, reduction="sum")
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        print("scale %r" % scaler.get_scale(), flush=True)
        loop_util.report(step, loss, model)


if __name__ == "__main__":
    main()
