"""Attention probabilities rebuilt from a fused kernel's own inputs.

``F.scaled_dot_product_attention`` computes softmax(q kᵀ · scale + mask) · v
without ever materialising the probabilities. ``rebuild`` computes them again,
for one batch row, from the very tensors the kernel was given:

    P[h, t, s] = softmax_s( q[h, t] · k[g(h), s] · scale + mask[h, t, s] )

with ``scale`` the call's (default 1/sqrt(E), E = q's last dimension),
``mask`` the call's ``attn_mask`` (bool: False is masked; float: added) or
``is_causal``'s top-left lower triangle, and g(h) = h // (Hq / Hk) when the
keys have fewer heads than the queries (grouped- and multi-query attention,
the layout ``enable_gqa`` and ``repeat_kv`` both use). The probabilities are
the kernel's before its dropout (the dropout draws are the kernel's own and
are never repeated here).

Bounds: only the leading ``keep`` queries and keys are returned ([H, T', S']
with T' = min(T, keep), S' = min(S, keep)); each row is normalised over all S
keys first, so a kept entry is the exact probability (a causal row t < keep
loses nothing: its keys are all among the first t + 1). Scores are computed
for the kept queries only, in float32, a group of heads at a time so the
scratch stays under ``SCRATCH_ELEMS`` values (about 32 MiB) at S = 4,096.

Contract: reads its arguments, never writes them, draws no random numbers,
runs under ``torch.no_grad`` and calls aten directly (not the softmax that
``capture.py`` wraps).
"""

import math

import torch

KEEP_TOKENS = 256           # queries and keys kept per sample and layer
SCRATCH_ELEMS = 1 << 23     # float32 values of score scratch at once


class NotRebuildable(Exception):
    """The call's inputs are not a layout this module rebuilds (named in the message)."""


def rebuild(query, key, attn_mask, is_causal, scale, row, keep=KEEP_TOKENS):
    """(weights [H, T', S'] float32, masked [T', S'] bool or None, (T, S)) for
    batch row ``row`` of one ``scaled_dot_product_attention`` call.
    ``masked`` marks the entries the mask took out (head 0's where the mask
    differs by head); None when the call had no mask."""
    q, k = _heads(query, row, "query"), _heads(key, row, "key")
    hq, t, e = q.shape
    hk, s = k.shape[0], k.shape[1]
    if k.shape[2] != e:
        raise NotRebuildable("query and key widths differ (%d, %d)" % (e, k.shape[2]))
    if hk != hq and (hk == 0 or hq % hk):
        raise NotRebuildable("%d query heads over %d key heads" % (hq, hk))
    tk, sk = min(t, keep), min(s, keep)
    scale = 1.0 / math.sqrt(e) if scale is None else float(scale)
    mask = _row_mask(attn_mask, query, row, hq, t, s, tk)
    with torch.no_grad():
        out = torch.empty((hq, tk, sk), dtype=torch.float32, device=q.device)
        group = hq // hk
        per = max(1, SCRATCH_ELEMS // max(1, tk * s))  # heads per chunk
        for h0 in range(0, hq, per):
            h1 = min(hq, h0 + per)
            qh = q[h0:h1, :tk].float()
            kh = k[torch.arange(h0, h1, device=k.device) // group].float()
            scores = torch.matmul(qh, kh.transpose(-1, -2)).mul_(scale)
            if mask is not None:
                m = mask[h0:h1] if mask.shape[0] > 1 else mask
                scores = scores.masked_fill(~m, float("-inf")) if m.dtype == torch.bool else scores.add_(m.float())
            if is_causal:
                scores.masked_fill_(_causal_out(tk, s, scores.device), float("-inf"))
            out[h0:h1] = torch.ops.aten._softmax(scores, -1, False)[..., :sk]
        masked = _masked(mask, is_causal, tk, sk, out.device)
    return out, masked, (t, s)


def _heads(x, row, what):
    """Row ``row`` of a [B, H, T, E] (or [B, T, E]: one head) input as [H, T, E]."""
    if not isinstance(x, torch.Tensor) or x.is_nested or x.dim() not in (3, 4):
        raise NotRebuildable("%s is not a [B, H, T, E] or [B, T, E] tensor" % what)
    y = x[row]
    return y.unsqueeze(0) if y.dim() == 2 else y


def _row_mask(attn_mask, query, row, h, t, s, tk):
    """The mask of batch row ``row`` broadcast to [H or 1, T', S] (a view, no copy), or None."""
    if attn_mask is None:
        return None
    if not isinstance(attn_mask, torch.Tensor) or attn_mask.is_nested:
        raise NotRebuildable("attn_mask is not a dense tensor")
    lead = tuple(query.shape[:-2])
    try:
        m = torch.broadcast_to(attn_mask, lead + (t, s))
    except RuntimeError as e:
        raise NotRebuildable("attn_mask %s does not broadcast to %s" % (list(attn_mask.shape), list(lead + (t, s)))) from e
    m = m[row]
    if m.dim() == 2:
        m = m.unsqueeze(0)
    if m.shape[0] != h and m.shape[0] != 1:
        raise NotRebuildable("attn_mask has %d heads for %d" % (m.shape[0], h))
    return m[:, :tk]


def _causal_out(tk, s, device):
    """True above the top-left diagonal: the entries ``is_causal`` masks."""
    return torch.ones((tk, s), dtype=torch.bool, device=device).triu(1)


def _masked(mask, is_causal, tk, sk, device):
    if mask is None and not is_causal:
        return None
    out = torch.zeros((tk, sk), dtype=torch.bool, device=device)
    if mask is not None:
        m = mask[0, :, :sk]
        out |= ~m if m.dtype == torch.bool else m <= torch.finfo(m.dtype).min  # -inf, or the dtype's least
    if is_causal:
        out |= _causal_out(tk, sk, device)
    return out
