"""What the Loss and Weights pages must report, computed by the training
scripts themselves (tests/e2e/test_pages.sh compares them with the viewer's
state().view, exactly).

The formulas are written out here in Python floats (IEEE double, glibc's exp
and log, as the viewer's C++) so that the comparison can be exact:

- per sample of a classification loss over logits x (one row, V classes) and
  target t: m = max_j x_j; s = sum_j exp(x_j - m), left to right;
  neg_log_p = -((x_t - m) - log(s)); p_target = exp(-neg_log_p);
  loss = neg_log_p (no class weights, no label smoothing); predicted = the
  first j with x_j = m. Rows whose target is ignore_index are left out.
- worst first: by loss, largest first, ties by row.
- tensor statistics as the recorder computes them (recorder/src/value_stats.cpp):
  8 lanes, lane l sums elements l, l+8, ... left to right in double, the
  n mod 8 tail goes to lane 0, lanes are added 0..7; mean = sum / n,
  std = sqrt(max(0, sum_sq / n - mean^2)), l2 = sqrt(sum_sq).

Nothing here calls a torch loss function (the recorder watches those).
"""
import math

import numpy as np
import torch


def row_loss(x, t):
    """(neg_log_p, p_target, predicted) of one logits row (list of floats)."""
    m = x[0]
    pred = 0
    for j, v in enumerate(x):
        if v > m:
            m, pred = v, j
    s = 0.0
    for v in x:
        s += math.exp(v - m)
    nlp = -((x[t] - m) - math.log(s))
    return nlp, math.exp(-nlp), pred


def per_sample(logits, targets, step, ignore_index=-100):
    """Every row of one batch: dicts with the keys of state().view.worst."""
    xs = logits.detach().double().tolist()
    ts = targets.detach().tolist()
    out = []
    for r, (x, t) in enumerate(zip(xs, ts)):
        if t == ignore_index:
            continue
        nlp, p, pred = row_loss(x, t)
        out.append({"step": step, "row": r, "target": int(t), "predicted": pred, "p_target": p,
                    "neg_log_p": nlp, "loss": nlp})
    return out


def worst_first(rows, n=20):
    return sorted(rows, key=lambda d: (-d["loss"], d["row"]))[:n]


def lane_stats(t):
    """min, max, mean, std, l2 of a tensor as the recorder computes them."""
    x = t.detach().reshape(-1).double().numpy()
    n = x.size
    k = n // 8 * 8
    lanes = x[:k].reshape(-1, 8)

    def lane_total(v):  # v: the per-element terms
        sums = [0.0] * 8
        if k:
            cum = np.cumsum(v[:k].reshape(-1, 8), axis=0)[-1]
            sums = [float(c) for c in cum]
        for e in v[k:]:
            sums[0] += float(e)
        total = sums[0]
        for l in range(1, 8):
            total += sums[l]
        return total

    s = lane_total(x)
    q = lane_total(x * x)
    mean = s / n
    return {"min": float(x.min()), "max": float(x.max()), "mean": mean,
            "std": math.sqrt(max(0.0, q / n - mean * mean)), "l2": math.sqrt(q)}


def param_stats(model_params, before, grads):
    """{name: {"weight": stats, "grad": stats|None, "update": stats}} for one
    step: `before` the weights and `grads` the .grad copies taken just before
    the update, the weights now after it."""
    out = {}
    for name, p in model_params:
        update = p.detach() - before[name]
        w = lane_stats(before[name])
        u = lane_stats(update)
        out[name] = {"weight": w, "grad": lane_stats(grads[name]) if grads.get(name) is not None else None,
                     "update": u, "update_ratio": u["l2"] / w["l2"] if w["l2"] > 0 else None,
                     "shape": list(p.shape)}
    return out


def save(path, ref):
    if path:
        torch.save(ref, path)
