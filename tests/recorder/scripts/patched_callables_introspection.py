"""What user code sees of the callables tvis patches: name, qualified name,
module, doc and signature must be those of PyTorch's own, during the run.

A small CNN trained from a DataLoader with 2 workers (so the data pipeline,
Grad-CAM and attention captures are all installed); each step prints its loss
and then one line per patched callable.
"""
import argparse
import inspect

import torch
import torch.autograd.function as function
import torch.autograd.graph as graph
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data.dataloader as dataloader
from torch.utils.data import DataLoader, TensorDataset


def describe(f):
    try:
        sig = str(inspect.signature(f))
    except (ValueError, TypeError) as e:
        sig = "no signature (%s)" % type(e).__name__
    doc = (getattr(f, "__doc__", None) or "").strip().splitlines()
    return "%s | %s | %s | %s | %s" % (getattr(f, "__name__", None), getattr(f, "__qualname__", None),
                                       getattr(f, "__module__", None), doc[0] if doc else "", sig)


def patched(opt):
    return [("Tensor.backward", torch.Tensor.backward), ("autograd.backward", torch.autograd.backward),
            ("F.cross_entropy", F.cross_entropy), ("torch.softmax", torch.softmax),
            ("Tensor.softmax", torch.Tensor.softmax), ("Tensor.register_hook", torch.Tensor.register_hook),
            ("Tensor.retain_grad", torch.Tensor.retain_grad),
            ("Function._register_hook", function._HookMixin._register_hook),
            ("saved_tensors_hooks.__enter__", graph.saved_tensors_hooks.__enter__),
            ("DataLoader._get_iterator", DataLoader._get_iterator),
            ("_BaseDataLoaderIter.__next__", dataloader._BaseDataLoaderIter.__next__),
            ("Optimizer.__init__", torch.optim.Optimizer.__init__), ("SGD.step", type(opt).step),
            ("F.multi_head_attention_forward", F.multi_head_attention_forward)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(torch.randn(64, 3, 8, 8), torch.randint(0, 3, (64,)))
    loader = DataLoader(data, batch_size=8, num_workers=2, shuffle=True)
    for step, (x, y) in enumerate(loader):
        if step >= args.steps:
            break
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.8f" % (step, loss.item()), flush=True)
        for name, f in patched(opt):
            print("step %d %s: %s" % (step, name, describe(f)), flush=True)


if __name__ == "__main__":
    main()
