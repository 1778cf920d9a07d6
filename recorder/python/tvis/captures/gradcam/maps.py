"""Grad-CAM arithmetic and the checks that decide whether a step can have it.

``class_scores(loss_info)``: the [B, classes] class scores fed to a
cross_entropy / nll_loss call and its class-index targets, or a reason why
the loss is not one Grad-CAM applies to.

``executed_nodes(root, targets)`` / ``python_functions(nodes)``: the nodes an
extra pass would run, and the custom ``autograd.Function`` backward nodes
among them (``CheckpointFunctionBackward``, reentrant checkpoint, refuses
``autograd.grad``; others run their Python backward once more per pass).

``class_gradients(scores, pairs, activations, consume)``: d scores[row, cls] /
d activation for every activation and (row, cls) pair, from the user's graph
(retained), with one-hot ``grad_outputs``: exactly the derivative of that one
sample's score, so batch coupling (BatchNorm in train mode) adds only the
terms of that score. A model whose operations never mix the batch's rows
gets one pass for all pairs on distinct rows (``merge``; shown by no
gradient reaching any other row, else the passes below). With ``batched``
(the caller's choice: CUDA), several pairs share a pass through vmap
(``is_grads_batched``) within a memory bound; otherwise one pass per pair.
Never accumulates into any ``.grad`` (``autograd.grad`` with inputs).

``cam(activation_row, gradient_row)``: the Grad-CAM map of one sample at one
layer, float32 [h, w]: ReLU(sum_c mean_hw(dS/dA_c) * A_c).
"""

import torch
import torch.autograd.function as _function
from torch.nn.modules._functions import BackwardHookFunction

_CLASSIFICATION = ("cross_entropy", "nll_loss", "CrossEntropyLoss", "NLLLoss")


def class_scores(loss_info):
    """(scores, targets or None, None) or (None, None, reason)."""
    if loss_info is None:
        return None, None, "the loss backward() ran on did not come from a recognised loss call"
    fn = loss_info.get("fn", "")
    if fn not in _CLASSIFICATION:
        return None, None, "the loss is %s, not a classification loss (cross_entropy / nll_loss)" % fn
    if "arguments" in loss_info:
        scores, target = loss_info["arguments"].get("input"), loss_info["arguments"].get("target")
    else:
        args = loss_info.get("args") or ()
        scores, target = (args[0] if len(args) > 0 else None), (args[1] if len(args) > 1 else None)
    if not isinstance(scores, torch.Tensor) or scores.dim() != 2 or not scores.is_floating_point():
        shape = list(scores.shape) if isinstance(scores, torch.Tensor) else type(scores).__name__
        return None, None, "the class scores are not [batch, classes] (got %s)" % (shape,)
    if scores.grad_fn is None:
        return None, None, "the class scores have no autograd graph"
    if not (isinstance(target, torch.Tensor) and target.dim() == 1 and not target.is_floating_point()
            and target.shape[0] == scores.shape[0]):
        target = None  # class probabilities or no target: predicted-class maps only
    return scores, target, None


def executed_nodes(root, targets):
    """The autograd nodes a pass from ``root`` to the nodes ``targets`` runs:
    those with a path to a target (a target itself only when a deeper target
    lies below it), as the engine decides with ``inputs``. Iterative
    post-order walk (graphs are deeper than Python's recursion limit)."""
    target_ids = {id(t) for t in targets}
    needed, seen, alive = {}, set(), []  # alive: wrappers kept so ids stay unique during the walk
    stack = [(root, False)]
    while stack:
        fn, post = stack.pop()
        if post:
            needed[id(fn)] = any(c is not None and (id(c) in target_ids or needed[id(c)])
                                 for c, _ in fn.next_functions)
            continue
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        alive.append(fn)
        stack.append((fn, True))
        stack.extend((c, False) for c, _ in fn.next_functions if c is not None)
    return [fn for fn in alive if needed[id(fn)]]


def mixes_batch(nodes):
    """True when ``nodes`` hold an operation known to mix the batch's rows
    (BatchNorm in train mode), so merged passes would only be undone."""
    return any("BatchNorm" in type(fn).__name__ and getattr(fn, "_saved_training", True) is not False for fn in nodes)


def python_functions(nodes):
    """The custom ``autograd.Function`` classes whose backward nodes are among
    ``nodes`` (torch's module-hook function left out: its hooks are silenced)."""
    classes = []
    for fn in nodes:
        cls = getattr(fn, "_forward_cls", None) if isinstance(fn, _function.BackwardCFunction) else None
        if cls is not None and cls is not BackwardHookFunction and cls not in classes:
            classes.append(cls)
    return classes


# Gradient memory one batched pass may hold (its pairs x the activations' bytes).
BATCH_BYTES = 256 << 20


def class_gradients(scores, pairs, activations, consume, batched=True, after_pass=None, merge=False, counts=None,
                    verify=False):
    """Calls ``consume(k, grads)`` for each pair k = (row, cls) of ``pairs``
    with the gradients of scores[row, cls] with respect to ``activations``
    (None where one is unused). Batched passes vmap over one-hot
    ``grad_outputs`` (``is_grads_batched``: each slice is its own
    vector-Jacobian product, so still one score at a time), as many pairs per
    pass as fit in BATCH_BYTES (a pass's gradients are dropped before the
    next); where autograd refuses a batched pass, one pass per pair.
    ``after_pass()``, when given, runs after each pass (the guard puts custom
    Functions' ctx back there, so the next pass finds it as the forward left it).

    ``merge``: first try row-independent passes (merged_passes): when no
    gradient of them reaches a row no pair names, each pair's rows are its
    own score's gradient and no other pass runs (``verify``: see
    merged_passes). ``counts`` (a dict), when
    given, gets ``passes`` (the passes run), ``merged`` (the merged passes
    stood) and ``mixing`` (a merged pass showed the rows mixed).
    Returns why batching was refused, or None."""
    count = counts if counts is not None else {}
    count.update(passes=0, merged=False, mixing=False)
    if merge:
        got = merged_passes(scores, pairs, activations, after_pass, count, verify)
        if got is not None:
            count["merged"] = True
            for k, grads in enumerate(got):
                consume(k, grads)
            return None
    per_pass = sum(a.numel() * a.element_size() for a in activations)
    group = max(1, min(len(pairs), BATCH_BYTES // max(per_pass, 1))) if batched else 1
    refused = None
    for start in range(0, len(pairs), group):
        chunk = pairs[start:start + group]
        grads = None
        if len(chunk) > 1 and refused is None:
            try:
                count["passes"] += 1
                grads = _batched_pass(scores, chunk, activations)
            except RuntimeError as e:
                refused = str(e).splitlines()[0]
            finally:
                if after_pass is not None:
                    after_pass()
        if grads is None:
            for k, (row, cls) in enumerate(chunk):
                try:
                    count["passes"] += 1
                    got = _single_pass(scores, row, cls, activations)
                finally:
                    if after_pass is not None:
                        after_pass()
                consume(start + k, got)
            continue
        for k in range(len(chunk)):
            consume(start + k, tuple(None if g is None else g[k] for g in grads))
        del grads
    return refused


def merged_passes(scores, pairs, activations, after_pass, count, verify=False):
    """The pairs' gradients from passes whose one-hot ``grad_outputs`` name
    several pairs on distinct rows at once (a row with two classes takes a
    second pass), or None when that cannot be shown to equal one pass per
    pair: some gradient reached a row no pair of its pass names (an
    operation mixed the batch's rows: BatchNorm in train mode, a mean over
    the batch, attention across it), or every row is named (nothing to see
    the mixing in). Without mixing, row r of a pass's gradient is the
    derivative of scores[r, cls] alone, the same arithmetic as its own pass.
    Mixing among the named rows only (a model pairing followed samples)
    leaves no trace on the others: ``verify`` also runs the first pair's own
    pass and keeps the merged passes only when its rows are equal, bit for
    bit. Returns a list of gradient tuples, one per pair, in order."""
    batch = scores.shape[0]
    groups = []  # [[pair index]], each on distinct rows
    for k, (row, _) in enumerate(pairs):
        group = next((g for g in groups if all(pairs[j][0] != row for j in g)), None)
        if group is None:
            groups.append([k])
        else:
            group.append(k)
    out = [None] * len(pairs)
    for group in groups:
        rows = sorted({pairs[k][0] for k in group})
        if len(rows) >= batch:
            return None
        one_hot = torch.zeros_like(scores, memory_format=torch.contiguous_format)
        for k in group:
            one_hot[pairs[k]] = 1
        try:
            count["passes"] += 1
            grads = torch.autograd.grad(scores, activations, grad_outputs=one_hot, retain_graph=True,
                                        allow_unused=True)
        finally:
            if after_pass is not None:
                after_pass()
        if any(g is not None and _reaches_other_rows(g, batch, rows) for g in grads):
            count["mixing"] = True
            return None
        for k in group:
            out[k] = grads
    if verify:  # once per run: the first pair's rows against its own pass, bit for bit
        row, cls = pairs[0]
        count["passes"] += 1
        try:
            own = _single_pass(scores, row, cls, activations)
        finally:
            if after_pass is not None:
                after_pass()
        if any((g is None) != (o is None) or (g is not None and not torch.equal(g[row], o[row]))
               for g, o in zip(out[0], own)):
            count["mixing"] = True
            return None
    return out


def _reaches_other_rows(g, batch, rows):
    """True when gradient ``g`` ([batch, ...]) is nonzero (or NaN) on a row not
    in ``rows``; counted per row where ``g`` lives, no copy of ``g``."""
    if g.shape[0] != batch:
        return True
    with torch.no_grad():
        nonzero = torch.count_nonzero(g.reshape(batch, -1), dim=1).cpu()
        nan = torch.isnan(g.reshape(batch, -1)).any(dim=1).cpu() if g.is_floating_point() else None
    named = set(rows)
    return any((int(nonzero[r]) or (nan is not None and bool(nan[r]))) for r in range(batch) if r not in named)


def _single_pass(scores, row, cls, activations):
    one_hot = torch.zeros_like(scores, memory_format=torch.contiguous_format)
    one_hot[row, cls] = 1
    return torch.autograd.grad(scores, activations, grad_outputs=one_hot, retain_graph=True, allow_unused=True)


def _batched_pass(scores, pairs, activations):
    one_hot = scores.new_zeros((len(pairs),) + tuple(scores.shape))
    for k, (row, cls) in enumerate(pairs):
        one_hot[k, row, cls] = 1
    # No warnings filter here: changing one would make Python show the user's
    # once-only warnings again (and vmap's slow-fallback warnings are off by default).
    return torch.autograd.grad(scores, activations, grad_outputs=one_hot, retain_graph=True,
                               allow_unused=True, is_grads_batched=True)


def cam(activation_row, gradient_row):
    with torch.no_grad():
        a = activation_row.detach().float()
        g = gradient_row.detach().float()
        weights = g.mean(dim=(1, 2))
        return (weights[:, None, None] * a).sum(dim=0).clamp_min(0)
