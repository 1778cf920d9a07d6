"""Cost of rebuilding attention from q, k (tvis.captures.attention.rebuild),
against the fused kernel it stands beside, in one process:

    build/venv/bin/python tools/bench/recorder/attention_rebuild.py [--heads 12] [--tokens 1024] [--dim 64]

For one layer's F.scaled_dot_product_attention call (batch 2, causal, and with
a bool padding mask) it prints the kernel's forward time, rebuild()'s time for
one followed sample (the leading 256 queries and keys kept), their ratio, and
the bytes one sample's record keeps (weights float32 + mask bool). A recorded
step costs rebuild time x layers x followed samples.
"""
import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "recorder", "python"))
from tvis.captures.attention.rebuild import rebuild  # noqa: E402


def best_ms(fn, repeats=7):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--tokens", type=int, default=1024)
    ap.add_argument("--dim", type=int, default=64)
    a = ap.parse_args()
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, a.heads, a.tokens, a.dim) for _ in range(3))
    keep = torch.ones(2, 1, 1, a.tokens, dtype=torch.bool)
    keep[1, ..., -a.tokens // 4:] = False
    print("torch %s, %d threads; [2, %d, %d, %d]" % (torch.__version__, torch.get_num_threads(), a.heads, a.tokens,
                                                     a.dim))
    for name, kw in (("causal", dict(is_causal=True)), ("padding mask", dict(attn_mask=keep))):
        kernel = best_ms(lambda: F.scaled_dot_product_attention(q, k, v, **kw))
        out = {}
        rebuilt = best_ms(lambda: out.update(r=rebuild(q, k, kw.get("attn_mask"), kw.get("is_causal", False),
                                                       None, 1)))
        w, m, full = out["r"]
        kept = w.numel() * 4 + (m.numel() if m is not None else 0)
        print("%-13s kernel %8.2f ms | rebuild (1 sample) %7.2f ms = %.2fx the kernel | kept %s of %s: %.2f MB"
              % (name, kernel, rebuilt, rebuilt / kernel, list(w.shape), list(full), kept / 1e6))


if __name__ == "__main__":
    main()
