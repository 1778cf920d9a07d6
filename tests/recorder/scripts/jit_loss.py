"""A TorchScript function that calls F.cross_entropy: tvis's loss wrapper must
let TorchScript compile the original (tests/recorder/test_torchscript.py)."""
import torch
import torch.nn.functional as F


@torch.jit.script
def scripted_loss(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(x, y)


def main():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(3):
        x, y = torch.randn(5, 4), torch.randint(0, 3, (5,))
        loss = scripted_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %r" % (i, loss.item()))


if __name__ == "__main__":
    main()
