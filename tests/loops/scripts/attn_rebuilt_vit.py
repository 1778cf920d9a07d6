"""Vision transformers whose attention is fused, for the rebuilt-attention
tests: timm's ViT (``Attention`` with ``fused_attn``: F.scaled_dot_product_attention)
and torchvision's VisionTransformer (nn.MultiheadAttention, need_weights=False),
both small (32x32 images, 8x8 patches: [CLS] + 16 tokens, 2 blocks), built
from code (no weights downloaded), trained together with one SGD. Batch 4.

``reference(pair, images)``: {module path: [B, H, T, T]} computed eagerly on
copies: timm with ``fused_attn = False`` (its softmax read at ``attn_drop``'s
input), torchvision's attention modules called again with need_weights=True,
average_attn_weights=False.
"""
import copy

import timm
import torch
import torch.nn.functional as F
from torchvision.models import VisionTransformer

from loop_util import digest, dump_parameters as dump, parse

B, C = 4, 10


class Pair(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.timm_vit = timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=8,
                                          depth=2, num_classes=C)
        self.tv_vit = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                        mlp_dim=64, num_classes=C)


def batch(step):
    g = torch.Generator().manual_seed(3000 + step)
    return torch.randn(B, 3, 32, 32, generator=g), torch.randint(0, C, (B,), generator=g)


def reference(pair, images):
    ref = copy.deepcopy(pair)
    out = {}
    hooks = []
    for i, blk in enumerate(ref.timm_vit.blocks):
        blk.attn.fused_attn = False
        hooks.append(blk.attn.attn_drop.register_forward_pre_hook(
            lambda m, a, i=i: out.__setitem__("blocks.%d.attn" % i, a[0].detach().clone())))
    calls = []
    for name, m in ref.tv_vit.named_modules():
        if isinstance(m, torch.nn.MultiheadAttention):
            hooks.append(m.register_forward_pre_hook(
                lambda m, a, k, name=name: calls.append((name, m, a, dict(k))), with_kwargs=True))
    with torch.no_grad():
        ref.timm_vit(images)
        ref.tv_vit(images)
        for h in hooks:
            h.remove()
        for name, m, a, k in calls:
            k.update(need_weights=True, average_attn_weights=False)
            out[name] = m(*a, **k)[1]
    return out


def main():
    args = parse(lambda p: p.add_argument("--dump", default=""))
    torch.manual_seed(args.seed)
    pair = Pair()
    opt = torch.optim.SGD(pair.parameters(), lr=0.01, momentum=0.9)
    dump(args, pair, "w_init")
    for step in range(args.steps):
        x, y = batch(step)
        loss = F.cross_entropy(pair.timm_vit(x), y) + F.cross_entropy(pair.tv_vit(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %r weights %s" % (step, loss.item(), digest(pair)), flush=True)
        dump(args, pair, "w_step%d" % step)


if __name__ == "__main__":
    main()
