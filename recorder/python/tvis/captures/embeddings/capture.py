"""Embeddings capture: per-sample vectors at each top-level module, and embedding tables.

Vectors: for each module call made directly from the root model's forward (the
root call is the only open call when the child returns; e.g. conv1, bn1, relu,
maxpool, layer1..4, avgpool, fc of a ResNet, blocks.0 of a model that loops
over an nn.ModuleList) whose first tensor output is floating point with the
batch as its first dimension, each followed sample's row (``ctx.followed_rows``)
pooled to one vector: ``[B, C, H, W...]`` -> mean over the spatial dims,
``[B, T, D]`` -> mean over the tokens (padding included), ``[B, D]`` as is.
The first grad-enabled call of each child module per step and root module is
taken (evaluation passes under no_grad are not). One
EmbeddingRecord {step, module, samples, labels, vectors [samples, dim]} per
call, vectors a tensor (role Other) on the child's call. Labels: the followed
sample's class (``label_index``); when the batch came without a DataLoader,
the target of the loss computed from this forward when it is a 1-d integer
tensor with one entry per batch row (classification), else empty strings.
Records are written once labels are known: at the backward, the step's end,
the next forward or the run's end. Outputs not carrying the batch dimension
(e.g. a positional embedding of shape [T, D]) are named in a notice.

Tables: each ``nn.Embedding`` at its first call in the run (its weights as
used at step 0's forward) -> EmbeddingTableRecord {module, rows, labels}: the
leading rows that fit the ``max_elems`` budget, labelled by the script's
vocabulary where one is found (``captures.vocabulary``).

Contract: reads outputs and weights (copies are kept by the native recorder),
writes nothing of the user's, draws no random numbers.
"""

import torch

from ... import records as R
from ... import schema as P
from ..vocabulary import Vocabularies


def attach(ctx):
    return EmbeddingsCapture(ctx)


def pooled(output, positions):
    """[len(positions), dim] vectors of the rows `positions` of a batch-first output."""
    rows = output.detach()[positions]
    if rows.dim() >= 4:
        return rows.mean(dim=tuple(range(2, rows.dim())))
    if rows.dim() == 3:
        return rows.mean(dim=1)
    return rows


class EmbeddingsCapture:
    def __init__(self, ctx):
        self.s = ctx  # CaptureContext
        self.vocab = Vocabularies(ctx.project_files)
        max_elems = ctx.option("max_elems")
        self.max_elems = int(max_elems) if max_elems else 2_000_000
        self.batch_rows = None
        self._taken = set()          # (step, id(root), id(child)) already recorded
        self._tables = set()         # id() of nn.Embedding modules recorded
        self._pending = []           # EmbeddingRecord dicts waiting for labels
        self._positions = []         # batch positions behind _pending's samples
        self._unbatched = {}         # module path -> output shape

    # ------------------------------------------------------------ hooks --
    def on_module_pre(self, module, eid, args):
        if len(self.s.open_calls) == 1 and not isinstance(module, torch.nn.modules.loss._Loss):
            self._flush()
            first = next((a for a in args if isinstance(a, torch.Tensor)), None)
            self.batch_rows = first.shape[0] if first is not None and first.dim() > 0 else None

    def on_module_post(self, module, eid, args, output):
        stack = self.s.open_calls
        if len(stack) == 1 and self.batch_rows is not None and torch.is_grad_enabled():
            key = (self.s.step, id(stack[0][0]), id(module))
            if key not in self._taken:
                self._taken.add(key)
                self._vectors(module, eid, output)
        if isinstance(module, torch.nn.Embedding) and id(module) not in self._tables:
            self._tables.add(id(module))
            self._table(module, eid)

    def on_backward(self, loss, loss_info):
        targets = _loss_targets(loss_info)
        if targets is not None and targets.dim() == 1 and targets.shape[0] == self.batch_rows \
                and not targets.is_floating_point() and self._pending:
            labels = targets.detach()[self._positions].tolist()
            for r in self._pending:
                r["labels"] = [lab if lab else str(int(t)) for lab, t in zip(r["labels"], labels)]
        self._flush()

    def on_step_end(self, step):
        self._flush()
        self._taken = {k for k in self._taken if k[0] > step}

    def finalize(self):
        self._flush()
        if self._unbatched:
            where = ", ".join("%s %s" % (m, list(sh)) for m, sh in sorted(self._unbatched.items()))
            self.s.notice("embeddings_unbatched", "top-level module outputs without the batch as first "
                          "dimension have no per-sample embedding: %s" % where)

    # ---------------------------------------------------------- records --
    def _vectors(self, module, eid, output):
        out = output
        while isinstance(out, (tuple, list)) and out:
            out = out[0]
        if not isinstance(out, torch.Tensor) or not out.is_floating_point() or out.dim() < 2:
            return
        name = self.s.module_name(module)
        if out.shape[0] != self.batch_rows:
            self._unbatched.setdefault(name, tuple(out.shape))
            return
        rows = self.s.followed_rows(self.batch_rows)
        if not rows:
            return
        positions = [pos for _, pos, _ in rows]
        with torch.no_grad():
            vectors = pooled(out, positions)
        tid = self.s.rec.tensor(vectors, P.EMBEDDING, eid, "embedding")
        self._positions = positions
        self._pending.append(R.embedding(step=self.s.step, module=name, samples=[s for s, _, _ in rows],
                                         labels=["" if lab is None else str(lab) for _, _, lab in rows],
                                         vectors=tid))

    def _table(self, module, eid):
        weight = module.weight.detach()
        dim = weight.shape[1] if weight.dim() == 2 else 1
        rows = max(1, min(weight.shape[0], self.max_elems // max(dim, 1)))
        tid = self.s.rec.tensor(weight[:rows], P.EMBEDDING_TABLE, eid, "embedding table")
        labels = self.vocab.for_table(module.num_embeddings)[:rows]
        self.s.add_insights(R.insights(tables=[R.embedding_table(module=self.s.module_name(module), rows=tid,
                                                                labels=labels)]))

    def _flush(self):
        if self._pending:
            records, self._pending = self._pending, []
            self.s.add_insights(R.insights(embeddings=records))


def _loss_targets(loss_info):
    """The target tensor of the loss call, or None."""
    if not loss_info:
        return None
    if "args" in loss_info:
        args = loss_info["args"]
        return args[1] if len(args) > 1 and isinstance(args[1], torch.Tensor) else None
    t = (loss_info.get("arguments") or {}).get("target")
    return t if isinstance(t, torch.Tensor) else None
