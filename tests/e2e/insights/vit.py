"""torchvision's VisionTransformer (32x32 images, 8x8 patches, 2 layers, 2
heads): its attention is nn.MultiheadAttention (library attention, no
weights exposed); conv_proj is a conv layer with Grad-CAM maps. Random images
from a DataLoader, SGD. argv[1]: where to torch.save the names of the model's
nn.MultiheadAttention modules (the library attention the viewer must name)."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torchvision.models import VisionTransformer


def main(ref_path):
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(24, 3, 32, 32), torch.randint(0, 10, (24,)))
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                              num_classes=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    torch.save({"library_attention": [name for name, m in model.named_modules() if isinstance(m, nn.MultiheadAttention)]},
               ref_path)
    for x, y in DataLoader(data, batch_size=8):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


if __name__ == "__main__":
    main(sys.argv[1])
