"""Grad-CAM arithmetic and the checks that decide whether a step can have it.

``class_scores(loss_info)``: the [B, classes] class scores fed to a
cross_entropy / nll_loss call and its class-index targets, or a reason why
the loss is not one Grad-CAM applies to.

``executed_nodes(root, targets)`` / ``python_functions(nodes)``: the nodes an
extra pass would run, and the custom ``autograd.Function`` backward nodes
among them (``CheckpointFunctionBackward``, reentrant checkpoint, refuses
``autograd.grad``; others run their Python backward once more per pass).

``sample_gradients(scores, row, cls, activations)``: d scores[row, cls] /
d activation for every activation, from the user's graph (retained), with a
one-hot ``grad_outputs``: exactly the derivative of that one sample's score,
so batch coupling (BatchNorm in train mode) adds only the terms of that score.
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


def python_functions(nodes):
    """The custom ``autograd.Function`` classes whose backward nodes are among
    ``nodes`` (torch's module-hook function left out: its hooks are silenced)."""
    classes = []
    for fn in nodes:
        cls = getattr(fn, "_forward_cls", None) if isinstance(fn, _function.BackwardCFunction) else None
        if cls is not None and cls is not BackwardHookFunction and cls not in classes:
            classes.append(cls)
    return classes


def sample_gradients(scores, row, cls, activations):
    one_hot = torch.zeros_like(scores, memory_format=torch.contiguous_format)
    one_hot[row, cls] = 1
    return torch.autograd.grad(scores, activations, grad_outputs=one_hot, retain_graph=True,
                               allow_unused=True)


def cam(activation_row, gradient_row):
    with torch.no_grad():
        a = activation_row.detach().float()
        g = gradient_row.detach().float()
        weights = g.mean(dim=(1, 2))
        return (weights[:, None, None] * a).sum(dim=0).clamp_min(0)
