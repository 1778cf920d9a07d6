"""Attention capture: softmax weights the project's code computes, per layer and head.

What is captured: ``torch.softmax``, ``F.softmax`` or ``Tensor.softmax`` called
from a project file (``ctx.project_files``), or an ``nn.Softmax`` module,
inside a recorded module call, over the last dimension, with a result of shape
``[B, H, T, S]`` or ``[B, T, T]`` where B is the batch of the current top-level
module call. Only the first grad-enabled forward of each root module per step
counts (not evaluation passes under no_grad, nor further forwards).

What is recorded: for each followed sample (``ctx.followed_rows``) its
``[H, T, S]`` weights (``[1, T, T]`` for a 3-d result; of a longer sequence
its leading ``rebuild.KEEP_TOKENS`` queries and keys, ``full`` the whole
shape, named in the ``attention_cut`` notice) as a tensor (role
Other) on the enclosing module call (for ``nn.Softmax``: its caller), with the
sample's input tokens when the top-level call has an integer ``[B, T]`` tensor
input (its first such) and their labels where a vocabulary is known
(``captures.vocabulary``); written as AttentionRecords {step, module,
event, sample, shape, weights, tokens, token_labels} at the end of each step.
A softmax of attention shape whose first dimension is not the batch (e.g.
``[B*H, T, T]``) is named in a notice instead, except torch's own inside
``F.multi_head_attention_forward`` ([B*H, T, S], the heads known): it is
recorded as [H, T, S] with kind ``nn.MultiheadAttention`` (or the functional's
name for a direct call). Fused kernels (``F.scaled_dot_product_attention``)
are rebuilt from their inputs (``library.py``, ``rebuild.py``) into the same
records, with source Rebuilt, the kind, the mask, the kept part and dropout.

How: ``Tensor.softmax`` and ``torch.softmax`` are wrapped; ``F.softmax`` is not
(TorchScript compiles it from source) but calls ``Tensor.softmax``, whose
wrapper looks past it to its caller; the ``torch.softmax`` wrapper is
registered as ``aten::softmax`` (``library.scriptable``) so scripted code
still compiles.

Contract: the wrappers call the original with the same arguments and return its
result object unchanged; outside a captured forward, or for results that are
not 3-d/4-d, they cost one Python call and a few attribute reads. The result is
read (the native recorder keeps a copy), never written; no random numbers.
"""

import functools
import sys

import torch
import torch.nn.functional as F

from ... import records as R
from ... import schema as P
from ..vocabulary import Vocabularies
from .library import LIBRARY_MODULES, LibraryAttention, scriptable
from .rebuild import KEEP_TOKENS, NotRebuildable, rebuild

_F_SOFTMAX = F.softmax.__code__


def attach(ctx):
    return AttentionCapture(ctx)


class AttentionCapture:
    def __init__(self, ctx):
        self.s = ctx  # CaptureContext
        self._open_calls = ctx.open_calls  # the session's live list of open calls
        self.project = ctx.project_files
        self.vocab = Vocabularies(self.project)
        self.library = LibraryAttention(ctx, self._rebuilt)
        self.enabled = True
        self.batch_rows = None      # rows of the current top-level call's batch
        self.token_ids = None       # its first integer [B, T] tensor input (token ids)
        self.token_table = None     # rows of the nn.Embedding that embedded token_ids
        self._tokens = {}           # batch position -> (tokens, labels) for this forward
        self._pending = []          # AttentionRecord dicts of this step
        self._skipped = {}          # module path -> shape of softmaxes not taken
        self._cut = {}              # module path -> (T, S) of rebuilt attention whose leading part was kept
        self._forwards = set()      # id() of root modules whose captured forward this step was seen
        self.capturing = False      # inside the first grad-enabled forward of its root this step

    # ------------------------------------------------------------ hooks --
    def install(self):
        # F.softmax is left alone (TorchScript compiles it from source): it calls
        # Tensor.softmax, whose wrapper looks past it to F.softmax's caller.
        self.s.patch(torch.Tensor, "softmax", self._wrap_softmax)
        self.s.patch(torch, "softmax", lambda orig: scriptable(self._wrap_softmax(orig), orig))  # aten::softmax
        self.library.install()

    def on_module_pre(self, module, eid, args, kwargs):
        if len(self._open_calls) == 1 and not isinstance(module, torch.nn.modules.loss._Loss):
            ids = kwargs.get("input_ids")  # Hugging Face's name for the token ids, first among keywords
            self._new_forward(module, list(args) + ([ids] if ids is not None else []) + list(kwargs.values()))
        elif isinstance(module, torch.nn.Embedding) and args and args[0] is self.token_ids:
            self.token_table = module.num_embeddings
        if isinstance(module, LIBRARY_MODULES):
            self.library.on_module_pre(module, self.capturing and self.enabled)

    def on_module_post(self, module, eid, args, output):
        if isinstance(module, LIBRARY_MODULES):
            self.library.on_module_post(module, self.capturing and self.enabled)

    def on_step_end(self, step):
        self._flush()
        self._forwards = set()

    def finalize(self):
        self._flush()
        text = self.library.notice_text()
        if text:
            self.s.notice("library_attention", text)
        if self._cut:
            where = ", ".join("%s [%d, %d]" % (m, t, s) for m, (t, s) in sorted(self._cut.items()))
            self.s.notice("attention_cut", "attention keeps the first %d queries and keys of longer sequences "
                          "(each row normalised over all keys): %s" % (KEEP_TOKENS, where))
        if self._skipped:
            where = ", ".join("%s %s" % (m, list(sh)) for m, sh in sorted(self._skipped.items()))
            self.s.notice("attention_not_batched", "softmax results of attention shape whose first dimension is "
                          "not the batch were not captured as attention: %s" % where)

    # ---------------------------------------------------------- softmax --
    def _wrap_softmax(self, orig):
        cap = self

        @functools.wraps(orig)
        def softmax(*args, **kwargs):
            out = orig(*args, **kwargs)
            if cap.capturing and cap.enabled and cap.s.open_calls and isinstance(out, torch.Tensor) \
                    and out.dim() in (3, 4) and cap.s.active:
                try:
                    cap._consider(out, args, kwargs, sys._getframe(1))
                except Exception as e:  # noqa: BLE001: an extension never breaks the script
                    cap.enabled = False
                    cap.s.capture_failed("attention", "softmax", e)
            return out

        softmax.__module__ = getattr(orig, "__module__", None)  # Tensor.softmax (a C method) has none
        return softmax

    def _consider(self, out, args, kwargs, caller):
        dim = kwargs["dim"] if "dim" in kwargs else args[1] if len(args) > 1 else None
        if not isinstance(dim, int) or dim not in (-1, out.dim() - 1):
            return
        if self.library.mha_heads:
            self._consider_mha(out)
            return
        shape = tuple(out.shape)
        if out.dim() == 3 and shape[1] != shape[2]:
            return
        owner = self._owner(caller)
        if owner is None:
            return
        module, eid = owner
        if self.batch_rows is None or shape[0] != self.batch_rows:
            self._skipped.setdefault(self.s.module_name(module), shape)
            return
        self._record(out, shape, module, eid)

    def _consider_mha(self, out):
        """torch's softmax inside F.multi_head_attention_forward: [B*H, T, S]."""
        heads = self.library.mha_heads[-1]
        module, eid = self.s.open_calls[-1]
        if out.dim() != 3 or not heads or self.batch_rows is None or out.shape[0] != self.batch_rows * heads:
            self.library.note(self.s.module_name(module), "%s: softmax %s is not [B*H, T, S] of this batch"
                              % (self.library.kind_inside(), list(out.shape)))
            return
        b, t, src = self.batch_rows, out.shape[1], out.shape[2]
        self._record(out.view(b, heads, t, src), (b, heads, t, src), module, eid, kind=self.library.kind_inside())

    def _rebuilt(self, kind, query, key, attn_mask, dropout_p, is_causal, scale):
        """A fused kernel's call (library.py): its probabilities for the followed samples."""
        if not (self.capturing and self.enabled and self.s.active):
            return
        if not isinstance(query, torch.Tensor) or query.dim() not in (3, 4) or query.is_nested:
            raise NotRebuildable("query is not a [B, H, T, E] or [B, T, E] tensor")
        if self.batch_rows is None or query.shape[0] != self.batch_rows:
            raise NotRebuildable("query %s is not batched like the model's input (%s rows)"
                                 % (list(query.shape), self.batch_rows))
        module, eid = self.s.open_calls[-1]
        name = self.s.module_name(module)
        heads = query.shape[1] if query.dim() == 4 else 1
        t, src = query.shape[-2], key.shape[-2]
        for sample, pos, _ in self.s.followed_rows(self.batch_rows):
            w, masked, full = rebuild(query, key, attn_mask, is_causal, scale, pos)
            mask = self.s.rec.tensor(masked, P.ATTENTION, eid, "attention mask[sample %d]" % sample) \
                if masked is not None else None
            self._append(name, eid, sample, pos, (self.batch_rows, heads, t, src), w, full, " (rebuilt)",
                         source=1, kind=kind, mask=mask, dropout=float(dropout_p) if dropout_p else None)

    def _owner(self, caller):
        """(module, event) the softmax belongs to, or None when it is not the project's."""
        stack = self.s.open_calls
        top = stack[-1][0]
        if isinstance(top, torch.nn.Softmax):
            return stack[-2] if len(stack) >= 2 else None
        if caller.f_code is _F_SOFTMAX and caller.f_back is not None:
            caller = caller.f_back
        return stack[-1] if self.project.contains(caller.f_code.co_filename) else None

    def _record(self, out, shape, module, eid, kind=None):
        name = self.s.module_name(module)
        with torch.no_grad():
            for sample, pos, _ in self.s.followed_rows(shape[0]):
                w = out[pos].detach()
                if w.dim() == 2:
                    w = w.unsqueeze(0)
                full = tuple(w.shape[1:])
                # the leading queries and keys, as rebuilt ones keep
                self._append(name, eid, sample, pos, shape, w[:, :KEEP_TOKENS, :KEEP_TOKENS], full, "", kind=kind)

    def _append(self, name, eid, sample, pos, shape, w, full, label, **fields):
        """Records ``w`` (one sample's [H, T', S'] weights, the leading part of
        [H, *full]) and its AttentionRecord with ``fields``; a cut is named in
        the attention_cut notice."""
        cut = tuple(w.shape[1:]) != tuple(full)
        if cut:
            self._cut.setdefault(name, tuple(full))
        tid = self.s.rec.tensor(w, P.ATTENTION, eid, "attention[sample %d]%s" % (sample, label))
        tokens, labels = self._tokens_of(pos)
        self._pending.append(R.attention(step=self.s.step, module=name, event=eid, sample=sample, shape=list(shape),
                                         weights=tid, tokens=tokens, token_labels=labels,
                                         full=list(full) if cut else None, **fields))
        self.library.records += 1

    # ----------------------------------------------------------- tokens --
    def _new_forward(self, root, args):
        """A top-level call began: ``args`` its positional then keyword
        values (Hugging Face models are called with keywords only)."""
        self.capturing = torch.is_grad_enabled() and id(root) not in self._forwards
        if self.capturing:
            self._forwards.add(id(root))
        self._tokens = {}
        self.token_ids = None
        self.token_table = None
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        self.batch_rows = tensors[0].shape[0] if tensors and tensors[0].dim() > 0 else None
        self.token_ids = next((t for t in tensors if t.dim() == 2 and t.shape[0] == self.batch_rows
                               and not t.is_floating_point() and not t.is_complex() and t.dtype != torch.bool), None)

    def _tokens_of(self, pos):
        got = self._tokens.get(pos)
        if got is None:
            got = ([], [])
            if self.token_ids is not None:
                ids = self.token_ids[pos].tolist()
                labels = self.vocab.for_ids(max(ids), self.token_table) if ids else []
                got = (ids, [labels[i] if 0 <= i < len(labels) else "" for i in ids] if labels else [])
            self._tokens[pos] = got
        return got

    def _flush(self):
        if self._pending:
            records, self._pending = self._pending, []
            self.s.add_insights(R.insights(attention=records))
