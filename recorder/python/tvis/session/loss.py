"""What the loss was: the call that produced the tensor backward() ran on.

analyze_loss() builds the LossRecord (``records.loss``) for the native
recorder. For classification (cross_entropy / nll_loss with class
indices) each followed sample's logits row, target, p(target), -log p, its
loss and the predicted class are computed here, in double, under no_grad,
from detached tensors: the user's tensors and autograd graph are untouched.
Logits of shape [B*T, V] that were reshaped from [B, T, V] get a TokenLayout
(per-token losses [B, T], ignore_index positions listed).
"""

import torch
import torch.nn.functional as F

from .. import records as R
from .. import schema as P


def _scalar_repr(v):
    if isinstance(v, torch.Tensor):
        return "tensor(shape=%s, dtype=%s)" % (list(v.shape), str(v.dtype).replace("torch.", ""))
    return repr(v)


def _source_shape(logits):
    """[B, T, V] when `logits` ([N, V]) is a view/reshape of such a tensor."""
    fn = logits.grad_fn
    for _ in range(3):
        if fn is None:
            return None
        sizes = getattr(fn, "_saved_self_sym_sizes", None) or getattr(fn, "_saved_self_sizes", None)
        if sizes is not None and len(sizes) == 3:
            b, t, v = (int(x) for x in sizes)
            if b * t == logits.shape[0] and v == logits.shape[1]:
                return b, t, v
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if len(nxt) == 1 else None
    return None


def grad_fn_name(t):
    """The name of the autograd node that made `t` ("AddBackward0"), or ""."""
    return type(t.grad_fn).__name__ if t.grad_fn is not None else ""


def feeds(out, loss, limit=4096):
    """True when `out` is `loss` or an input of the graph that computed it:
    a walk back from loss.grad_fn that reaches out.grad_fn (at most `limit`
    nodes; a graph larger than that counts as not fed)."""
    if out is loss:
        return True
    target = out.grad_fn
    if target is None or loss.grad_fn is None:
        return False
    seen, todo = set(), [loss.grad_fn]
    while todo and len(seen) < limit:
        fn = todo.pop()
        if fn is target:
            return True
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        todo.extend(f for f, _ in fn.next_functions if f is not None)
    return False


def _first_value(t):
    return float(t.detach().reshape(-1)[0].item()) if t.numel() >= 1 else 0.0


def analyze_loss(session, loss, cand, outer="", call_out=None):
    """The LossRecord of the backward() on `loss`. `cand`: the recognised loss
    call whose output `loss` is or is computed from (None: a custom loss);
    `outer`: grad_fn_name(loss) when `loss` is not `cand`'s output itself,
    and `call_out` that output (its value: what the loss was scaled from)."""
    rec = session.rec
    value = _first_value(loss)
    f = {  # the LossRecord's fields, filled in below
        "step": session.steps_done,
        "event": cand["event"] if cand else R.NO_EVENT,
        "call": cand["call"] if cand else "",
        "value": value,
        "value_repr": repr(value),
        "reduction": "",
        "args": [],
        "samples": [],
        "outer": outer,
    }
    if call_out is not None:
        f["call_value"] = _first_value(call_out)
    if cand is None:
        return R.loss(**f)
    if "arguments" in cand:  # torch.nn.functional.*
        arguments = dict(cand["arguments"])
        inp, target = arguments.pop("input", None), arguments.pop("target", None)
        fn = cand["fn"]
        orig = cand["orig"]
    else:  # an nn loss module: its args are (input, target)
        a = cand["args"]
        inp, target = (a[0] if len(a) > 0 else None), (a[1] if len(a) > 1 else None)
        arguments = dict(cand["kwargs"])
        fn = {"CrossEntropyLoss": "cross_entropy", "NLLLoss": "nll_loss"}.get(cand["fn"], cand["fn"])
        orig = None
    f["reduction"] = str(arguments.get("reduction", "mean"))
    f["args"] = [(k, _scalar_repr(v)) for k, v in arguments.items()
                   if k not in ("size_average", "reduce") or v is not None]
    eid = cand["event"]
    if isinstance(inp, torch.Tensor):
        f["logits"] = rec.tensor(inp, P.LOGITS, eid, "input")
    if isinstance(target, torch.Tensor):
        f["targets"] = rec.tensor(target, P.TARGET, eid, "target")
    if fn not in ("cross_entropy", "nll_loss") or not isinstance(inp, torch.Tensor) \
            or not isinstance(target, torch.Tensor) or inp.dim() != 2 or target.dim() != 1 \
            or target.dtype not in (torch.long, torch.int):
        return R.loss(**f)
    ignore_index = int(arguments.get("ignore_index", -100))
    with torch.no_grad():
        x = inp.detach().double()
        logp = torch.log_softmax(x, dim=1) if fn == "cross_entropy" else x
        tgt = target.detach().long()
        valid = tgt != ignore_index
        safe = torch.where(valid, tgt, torch.zeros_like(tgt))
        nlp = -logp.gather(1, safe.unsqueeze(1)).squeeze(1)
        nlp = torch.where(valid, nlp, torch.zeros_like(nlp))
        pred = x.argmax(1)
        weight = arguments.get("weight")
        smoothing = float(arguments.get("label_smoothing", 0.0) or 0.0)
        if weight is None and smoothing == 0.0:
            per = nlp
        else:
            w = None if weight is None else weight.double()
            per = F.cross_entropy(x, tgt, weight=w, ignore_index=ignore_index, reduction="none",
                                  label_smoothing=smoothing) if fn == "cross_entropy" else \
                F.nll_loss(x, tgt, weight=w, ignore_index=ignore_index, reduction="none")
        k = min(session.samples, x.shape[0])
        rows = torch.stack([nlp[:k], per[:k]]).cpu().tolist() if k else [[], []]
        tg, pr = tgt[:k].cpu().tolist(), pred[:k].cpu().tolist()
        for i in range(k):
            f["samples"].append(R.sample_loss(
                sample=i, batch_row=i,
                logits=rec.tensor(inp[i], P.LOGITS, eid, "logits[%d]" % i),
                target=int(tg[i]), neg_log_p=rows[0][i],
                p_target=float(torch.exp(torch.tensor(-rows[0][i], dtype=torch.float64))),
                loss=rows[1][i], predicted=int(pr[i]),
            ))
        shape = _source_shape(inp)
        if shape is not None:
            b, t, v = shape
            ignored = (~valid).nonzero().reshape(-1).cpu().tolist()
            f["tokens"] = R.token_layout(
                batch=b, tokens=t, vocab=v, ignore_index=ignore_index, ignored=ignored,
                token_losses=rec.tensor(per.reshape(b, t).float(), P.OTHER, eid, "token_losses"),
            )
    return R.loss(**f)
