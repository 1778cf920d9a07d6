"""What Grad-CAM's extra gradient passes cost against the training step's own
backward, on torchvision ResNet-18 (32x32, batch 32, CPU, train-mode BN):

    /usr/bin/python3 tools/bench/recorder/gradcam_passes.py [--pairs 8] [--repeats 3]

Prints, per repeat: one data-gradient pass (scores -> every conv activation,
no weight gradients), `pairs` such passes batched through vmap
(is_grads_batched) and the same in a loop, and the full backward of the loss.
Grad-CAM needs one pass per (followed sample, class) pair: 4 samples x the
predicted class = 4 by default, up to 8 with --gradcam-true (a misclassified
sample's true class too). Batching is used on CUDA only: on CPU it is no
faster than the loop.
"""
import argparse
import time

import torch
import torchvision


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pairs", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    x, y = torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))
    acts = []
    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            m.register_forward_hook(lambda mod, i, o: acts.append(o))
    for _ in range(args.repeats):
        acts.clear()
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        onehots = torch.zeros(args.pairs, *out.shape)
        for k in range(args.pairs):
            onehots[k, k % out.shape[0], (3 * k) % out.shape[1]] = 1
        t0 = time.perf_counter()
        torch.autograd.grad(out, acts, grad_outputs=onehots[0], retain_graph=True)
        t1 = time.perf_counter()
        torch.autograd.grad(out, acts, grad_outputs=onehots, retain_graph=True, is_grads_batched=True)
        t2 = time.perf_counter()
        for k in range(args.pairs):
            torch.autograd.grad(out, acts, grad_outputs=onehots[k], retain_graph=True)
        t3 = time.perf_counter()
        loss.backward()
        t4 = time.perf_counter()
        print("one pass %5.0f ms | %d batched %5.0f ms | %d in a loop %5.0f ms | full backward %5.0f ms"
              % ((t1 - t0) * 1e3, args.pairs, (t2 - t1) * 1e3, args.pairs, (t3 - t2) * 1e3, (t4 - t3) * 1e3))


if __name__ == "__main__":
    main()
