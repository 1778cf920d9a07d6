"""torchvision's VisionTransformer (32x32 images, 8x8 patches: [CLS] + 16
tokens, 2 layers, 2 heads): its attention is nn.MultiheadAttention with
need_weights=False, which tvis rebuilds from the kernel's q and k;
conv_proj is a conv layer with Grad-CAM maps. Random images from a
DataLoader, SGD.

argv[1]: where to torch.save, per step, the attention weights computed here
by hand ([B, H, T, T] per layer, forward order: softmax(q kᵀ / sqrt(d)) from
each block's attention input and in_proj weights, read by forward pre-hooks
that only keep a reference) and the batch: the same layout as vit_own.py's,
for the test's independent rollout. No module is called for it and no random
number drawn.
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torchvision.models import VisionTransformer

INPUTS = []  # this forward's attention inputs, per layer: (module, x [B, T, D])


def eager_weights(mha, x):
    b, t, d = x.shape
    h = mha.num_heads
    q, k = F.linear(x, mha.in_proj_weight[:2 * d], mha.in_proj_bias[:2 * d]).split(d, dim=2)
    q, k = (z.view(b, t, h, d // h).transpose(1, 2) for z in (q, k))
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // h), dim=-1)


def main(ref_path):
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(24, 3, 32, 32), torch.randint(0, 10, (24,)))
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                              num_classes=10)
    for m in model.modules():
        if isinstance(m, nn.MultiheadAttention):
            m.register_forward_pre_hook(lambda m, a, k: INPUTS.append((m, (a or (k["query"],))[0])), with_kwargs=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    ref = {"steps": []}
    for x, y in DataLoader(data, batch_size=8):
        INPUTS.clear()
        scores = model(x)
        with torch.no_grad():
            ref["steps"].append({"att": [eager_weights(m, a) for m, a in INPUTS], "x": x})
        torch.save(ref, ref_path)  # each step: tvis run --steps N may stop the script after step N
        opt.zero_grad()
        F.cross_entropy(scores, y).backward()
        opt.step()


if __name__ == "__main__":
    main(sys.argv[1])
