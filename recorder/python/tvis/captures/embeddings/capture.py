"""Embeddings capture: per-sample vectors at each top-level module, and embedding tables.

Vectors: for each module call made directly from the root model's forward (the
root call is the only open call when the child returns; e.g. conv1, bn1, relu,
maxpool, layer1..4, avgpool, fc of a ResNet, blocks.0 of a model that loops
over an nn.ModuleList) whose first tensor output is floating point with the
batch as its first dimension, each batch row pooled to one vector:
``[B, C, H, W...]`` -> mean over the spatial dims, ``[B, T, D]`` -> mean over
the tokens (padding included), ``[B, D]`` as is. The first grad-enabled call of
each child module per step and root module is taken (evaluation passes under
no_grad are not). One EmbeddingRecord per call, its tensors (role Embedding) on
the child's call:
  - ``samples``, ``labels``, ``vectors`` [samples, dim]: the followed samples
    (``ctx.followed_rows``), at full width; ``positions``: their batch rows;
  - ``rows``, ``row_labels``, ``batch_vectors`` [len(rows), dim']: every batch
    row, bounded: the leading ``MAX_ROWS`` rows plus any followed row past
    them (``batch_rows_of``), and at most ``MAX_DIM`` dims (a wider vector is
    averaged over contiguous groups of its dims, ``narrowed``);
    ``batch_size``: the batch's rows. When every recorded row is a followed
    one, in order, at full width (a batch of at most ``samples`` rows, a
    vector of at most ``MAX_DIM`` dims), both hold the same values and
    ``batch_vectors`` is ``vectors``' tensor id: one record, not two.
Cost: len(rows) x sum over the modules of min(dim, MAX_DIM) float32 values a
step (torchvision ResNet-18, 10 modules of 64..512 dims: 1,738 values = 6,952
bytes a row before compression; 222 KB a step at batch 32, 1.78 MB at most).
Labels: the followed sample's class (``label_index``); the rows' classes, and
the followed ones' when the batch came without a DataLoader: the target of the
loss computed from this forward when it is a 1-d integer tensor with one entry
per batch row (classification), else empty strings. Records are written once
labels are known: at the backward, the step's end, the next forward or the
run's end. Outputs not carrying the batch dimension (e.g. a positional
embedding of shape [T, D]) are named in a notice.

Tables: each ``nn.Embedding`` at its first call in the run (its weights as
used at step 0's forward) -> EmbeddingTableRecord {module, rows, labels}: the
leading rows that fit the ``max_elems`` budget, labelled by the script's
vocabulary where one is found (``captures.vocabulary``).

Contract: reads outputs and weights (copies are kept by the native recorder),
detached and under no_grad; writes nothing of the user's, draws no random
numbers (training is bit-identical with and without this capture).
"""

import torch

from ... import records as R
from ... import schema as P
from ..vocabulary import Vocabularies


def attach(ctx):
    return EmbeddingsCapture(ctx)


MAX_ROWS = 256  # leading batch rows pooled per record (followed rows past them added)
MAX_DIM = 512   # dims kept of a batch row's vector


def pooled(output, positions, leading=None):
    """[len(positions), dim] vectors of the rows `positions` of a batch-first output
    (`leading`: whether they are 0 .. len - 1, when the caller knows)."""
    out = output.detach()
    if leading is None:
        leading = positions == list(range(len(positions)))
    rows = (out if len(positions) == out.shape[0] else out[:len(positions)]) if leading else out[positions]
    if rows.dim() >= 4:
        return rows.mean(dim=tuple(range(2, rows.dim())))
    if rows.dim() == 3:
        return rows.mean(dim=1)
    return rows


def batch_rows_of(batch_size, followed_positions, max_rows=MAX_ROWS):
    """The batch rows recorded: 0 .. min(batch_size, max_rows) - 1, then the
    followed positions past them in ascending order."""
    lead = min(batch_size, max_rows)
    return list(range(lead)) + sorted({p for p in followed_positions if lead <= p < batch_size})


def narrowed(vectors, max_dim=MAX_DIM):
    """[rows, dim] -> [rows, min(dim, max_dim)]: a wider vector's dims averaged
    over max_dim contiguous groups (adaptive average pooling: group k spans
    dims floor(k*dim/max_dim) .. ceil((k+1)*dim/max_dim) - 1); deterministic."""
    if vectors.shape[1] <= max_dim:
        return vectors
    return torch.nn.functional.adaptive_avg_pool1d(vectors.unsqueeze(1), max_dim).squeeze(1)


class RowsPlan:
    """What each top-level call of one forward records, from the batch size
    and the followed samples ([(sample id, batch position, label index)]):
    ``positions`` (the followed samples' batch rows), ``rows``
    (batch_rows_of), ``leading_rows`` (rows are 0 .. len - 1),
    ``leading_positions`` (positions are the rows' first ones),
    ``all_followed`` (both, and as many), ``index`` (each position's row in
    ``rows``), ``samples``, ``labels`` and blank ``row_labels``."""

    __slots__ = ("positions", "rows", "leading_rows", "leading_positions", "all_followed", "index", "samples",
                 "labels", "row_labels")

    @classmethod
    def of(cls, batch_size, followed):
        p = cls()
        p.positions = [pos for _, pos, _ in followed]
        p.rows = batch_rows_of(batch_size, p.positions)
        p.leading_rows = p.rows == list(range(len(p.rows)))
        p.leading_positions = p.positions == p.rows[:len(p.positions)]
        p.all_followed = p.leading_positions and len(p.positions) == len(p.rows)
        where = {r: k for k, r in enumerate(p.rows)}
        p.index = [where[pos] for pos in p.positions]
        p.samples = [s for s, _, _ in followed]
        p.labels = ["" if lab is None else str(lab) for _, _, lab in followed]
        p.row_labels = [""] * len(p.rows)
        return p


class EmbeddingsCapture:
    def __init__(self, ctx):
        self.s = ctx  # CaptureContext
        self._open_calls = ctx.open_calls  # the session's live list of open calls
        self.vocab = Vocabularies(ctx.project_files)
        self.max_elems = int(ctx.option("max_elems"))  # the run's RunConfig
        self.batch_rows = None
        self._taken = set()          # (step, id(root), id(child)) already recorded
        self._tables = set()         # id() of nn.Embedding modules recorded
        self._pending = []           # EmbeddingRecord dicts waiting for labels
        self._positions = []         # batch positions behind _pending's samples
        self._rows = []              # batch positions behind _pending's rows
        self._unbatched = {}         # module path -> output shape
        self._plan_cache = None      # this forward's RowsPlan (False: none followed; None: not yet asked)

    # ------------------------------------------------------------ hooks --
    def on_module_pre(self, module, eid, args, kwargs):
        if len(self._open_calls) == 1 and not isinstance(module, torch.nn.modules.loss._Loss):
            self._flush()
            first = next((a for a in args if isinstance(a, torch.Tensor)), None)
            self.batch_rows = first.shape[0] if first is not None and first.dim() > 0 else None
            self._plan_cache = None

    def on_fetch(self, eid, batch):
        self._plan_cache = None  # the followed samples may have changed

    def on_module_post(self, module, eid, args, output):
        stack = self._open_calls
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
            row_labels = [str(int(t)) for t in targets.detach()[self._rows].tolist()]
            for r in self._pending:
                r["labels"] = [lab if lab else str(int(t)) for lab, t in zip(r["labels"], labels)]
                r["row_labels"] = row_labels
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
        if not isinstance(out, torch.Tensor) or not out.is_floating_point():
            return
        shape = out.shape
        if len(shape) < 2:
            return
        name = self.s.module_name(module)
        if shape[0] != self.batch_rows:
            self._unbatched.setdefault(name, tuple(shape))
            return
        plan = self._plan()
        if plan is None:
            return
        every = pooled(out, plan.rows, plan.leading_rows)  # of the detached output: no graph, no no_grad() needed
        if plan.all_followed:
            vectors = every
        elif plan.leading_positions:  # the leading rows: a view
            vectors = every[:len(plan.positions)]
        else:
            vectors = every[plan.index]
        narrow = narrowed(every)
        tid = self.s.rec.tensor(vectors, P.EMBEDDING, eid, "embedding")
        # The same values (every recorded row followed, at full width): one record for both.
        batch_tid = tid if narrow is vectors else self.s.rec.tensor(narrow, P.EMBEDDING, eid, "embedding rows")
        self._positions = plan.positions
        self._rows = plan.rows
        self._pending.append(R.embedding(step=self.s.step, module=name, samples=plan.samples, labels=plan.labels,
                                         vectors=tid, positions=plan.positions, rows=plan.rows,
                                         row_labels=plan.row_labels, batch_vectors=batch_tid,
                                         batch_size=self.batch_rows))

    def _plan(self):
        """The rows plan (RowsPlan) of this forward's batch, or None when no
        sample is followed: computed at the first top-level call that asks,
        after the root call began or a batch was fetched. Its lists are shared
        by the forward's records and never changed (on_backward replaces a
        record's labels, it does not edit them)."""
        if self._plan_cache is None:
            followed = self.s.followed_rows(self.batch_rows)
            self._plan_cache = RowsPlan.of(self.batch_rows, followed) if followed else False
        return self._plan_cache or None

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
