"""torchvision VisionTransformer, small (32x32 images, 8x8 patches, 2 layers, 2
heads, width 32), random data, batch 8, SGD. Its encoder blocks call
nn.MultiheadAttention with keyword arguments only (query=x, key=x, value=x) in
torchvision 0.14, positionally in 0.29."""
import torch
import torch.nn.functional as F
from torchvision.models import VisionTransformer

from fidelity_util import dump, parse, report


def main():
    args = parse(lambda p: p.add_argument("--batch", type=int, default=8))
    torch.manual_seed(args.seed)
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                              num_classes=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    dump(args, model, "w_init")
    for step in range(args.steps):
        x = torch.randn(args.batch, 3, 32, 32)
        y = torch.randint(0, 10, (args.batch,))
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
