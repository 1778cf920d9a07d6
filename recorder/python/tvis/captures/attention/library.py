"""Attention computed inside torch: rebuilt from the kernel's inputs, or named.

Every ``F.scaled_dot_product_attention`` call (torch 2.x) made in a captured
forward (``AttentionCapture.capturing``) on a batch of the top-level call's
rows is rebuilt (``rebuild.py``): its probabilities for each followed sample,
per head, recorded as an AttentionRecord with source Rebuilt and the call's
kind. That covers the calls torch, Hugging Face (``sdpa``), timm's fused
``Attention`` and the project make, ``nn.MultiheadAttention`` with
``need_weights=False`` (torch 2.x's ``F.multi_head_attention_forward`` calls
it) and through it ``nn.Transformer*`` layers and torchvision's ViT. Inside
``F.multi_head_attention_forward`` torch computes the softmax itself when
``need_weights=True`` (and in torch 1.13 always): ``capture.py`` takes that
softmax, [B*H, T, S], as captured weights of kind ``nn.MultiheadAttention``
(``mha_heads`` says the heads).

What cannot be rebuilt is named instead: a call whose inputs are not a
batched dense layout (``rebuild.NotRebuildable``), and torch's fused fast
paths (kernels inside a torch.compile graph are left alone: the session's
``torch_compile`` notice says so), which compute attention in one C++ op (``nn.MultiheadAttention``'s
``_native_multi_head_attention`` and ``nn.TransformerEncoderLayer``'s
``_transformer_encoder_layer_fwd``, taken only when no parameter needs a
gradient or grad is off). Each (module path, kind) is reported once per run:
a ``library_attention`` insight record as soon as it is seen, and at the end
one notice naming them all.

Contract: the patched functions call the original with the same arguments
and return its result; the rebuild runs after the kernel returned, on its
inputs, read only, and draws no random numbers (the kernel's dropout is its
own). TorchScript still compiles the patched functions (``scriptable``: it is
shown the original, or the same builtin op where the original is one, as
torch 2.x's ``F.scaled_dot_product_attention`` is).
"""

import functools

import torch
import torch.nn.functional as F

from ... import records as R
from .rebuild import NotRebuildable

MHA = "nn.MultiheadAttention"
SDPA = "F.scaled_dot_product_attention"
MHA_FORWARD = "F.multi_head_attention_forward"
# The module classes whose calls on_module_pre / on_module_post act on (a call of
# any other module does nothing there, so the capture need not call them).
LIBRARY_MODULES = (torch.nn.MultiheadAttention, torch.nn.TransformerEncoderLayer)
_SCRIPTABLE = []  # wrappers registered as TorchScript builtins: alive for good (the table is keyed by id())


def scriptable(wrapper, orig):
    """`wrapper` (which stands in for `orig`) as TorchScript sees it: the same
    builtin op where `orig` is one (``aten::softmax`` for ``torch.softmax``;
    a C function such as torch 2.x's ``F.scaled_dot_product_attention`` has
    no Python source to compile), else the original Python function, compiled
    instead of the wrapper (the mechanism of ``torch.jit._script_if_tracing``)."""
    op = torch.jit._builtins._find_builtin(orig)
    if op is not None:
        _SCRIPTABLE.append(wrapper)
        torch.jit._builtins._register_builtin(wrapper, op)
    else:
        setattr(wrapper, "__script_if_tracing_wrapper", True)
        setattr(wrapper, "__original_fn", orig)
    return wrapper


def _compiling():
    """True while torch.compile traces: the rebuild stays out of compiled graphs
    (the branch folds away at trace time, so the graph is the model's own)."""
    compiler = getattr(torch, "compiler", None)
    return bool(compiler is not None and hasattr(compiler, "is_compiling") and compiler.is_compiling())


def _sdpa_arguments(args, kwargs):
    """(query, key, attn_mask, dropout_p, is_causal, scale) of a call, as torch binds them."""
    names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    return (bound.get("query"), bound.get("key"), bound.get("attn_mask"), bound.get("dropout_p", 0.0),
            bool(bound.get("is_causal", False)), bound.get("scale"))


class LibraryAttention:
    def __init__(self, ctx, on_rebuild):
        self.s = ctx                 # CaptureContext
        self.on_rebuild = on_rebuild  # (kind, query, key, attn_mask, dropout_p, is_causal, scale) -> None
        self.seen = []               # [(module path, kind)] in the order first seen
        self._keys = set()
        self.mha_heads = []          # num_heads of each open F.multi_head_attention_forward, innermost last
        self._mha_kind = []          # the kind its records take: MHA (a module's call) or MHA_FORWARD
        self._mha_calls = {}         # id() of open nn.MultiheadAttention modules -> records made at entry
        self._mha_called = set()     # id() of nn.MultiheadAttention modules ever called
        self.records = 0             # attention records made so far (capture.py counts them here)

    def install(self):
        self.s.patch(F, "multi_head_attention_forward", self._wrap_mha_forward)
        if hasattr(F, "scaled_dot_product_attention"):
            self.s.patch(F, "scaled_dot_product_attention", self._wrap_sdpa)

    def kind_inside(self):
        """The kind of attention records made now: the innermost open
        multi-head attention's, else the plain kernel's."""
        return self._mha_kind[-1] if self._mha_kind else SDPA

    # ----------------------------------------------------- module hooks --
    def on_module_pre(self, module, capturing):
        if isinstance(module, torch.nn.MultiheadAttention):
            self._mha_called.add(id(module))
            if capturing:
                self._mha_calls[id(module)] = self.records

    def on_module_post(self, module, capturing):
        if isinstance(module, torch.nn.MultiheadAttention):
            before = self._mha_calls.pop(id(module), None)
            if before is not None and capturing and self.records == before:
                self.note(self.s.module_name(module), MHA + " (fused fast path)")
        elif isinstance(module, torch.nn.TransformerEncoderLayer):
            attn = getattr(module, "self_attn", None)
            if capturing and attn is not None and id(attn) not in self._mha_called:
                self.note(self.s.module_name(module), "nn.TransformerEncoderLayer (fused fast path)")

    def notice_text(self):
        if not self.seen:
            return None
        where = ", ".join("%s (%s)" % (m, k) for m, k in self.seen)
        return ("attention computed inside torch could not be rebuilt, so no weights were recorded for: %s" % where)

    def note(self, module_path, kind):
        key = (module_path, kind)
        if key in self._keys:
            return
        self._keys.add(key)
        self.seen.append(key)
        self.s.add_insights(R.insights(library_attention=[R.library_attention(module=module_path, kind=kind)]))

    # --------------------------------------------------------- wrappers --
    def _wrap_mha_forward(self, orig):
        lib = self

        @functools.wraps(orig)
        def multi_head_attention_forward(*args, **kwargs):
            heads = args[4] if len(args) > 4 else kwargs.get("num_heads")
            in_module = bool(lib.s.open_calls) and isinstance(lib.s.open_calls[-1][0], torch.nn.MultiheadAttention)
            lib.mha_heads.append(heads if isinstance(heads, int) else None)
            lib._mha_kind.append(MHA if in_module else MHA_FORWARD)
            try:
                return orig(*args, **kwargs)
            finally:
                lib.mha_heads.pop()
                lib._mha_kind.pop()

        return scriptable(multi_head_attention_forward, orig)

    def _wrap_sdpa(self, orig):
        lib = self

        @functools.wraps(orig)
        def scaled_dot_product_attention(*args, **kwargs):
            out = orig(*args, **kwargs)
            if lib.s.active and lib.s.open_calls and not _compiling():
                try:
                    lib.on_rebuild(lib.kind_inside(), *_sdpa_arguments(args, kwargs))
                except NotRebuildable as e:
                    lib.note(lib.s.module_name(lib.s.open_calls[-1][0]), "%s: %s" % (lib.kind_inside(), e))
                except Exception as e:  # noqa: BLE001: never break the script
                    lib.s.notice("attention_failed", "rebuilding attention failed: %s: %s" % (type(e).__name__, e))
            return out

        return scriptable(scaled_dot_product_attention, orig)
