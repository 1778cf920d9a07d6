"""Attention computed inside torch, which never exposes its weights.

Contract: a call is noted when the model actually makes it: an
``nn.MultiheadAttention`` module call (kind "nn.MultiheadAttention"), a call of
``F.multi_head_attention_forward`` not made by such a module, or of
``F.scaled_dot_product_attention`` where torch has it (not 1.13), attributed to
the innermost open module call, and an ``nn.TransformerEncoderLayer`` call that
took torch's fused fast path (its ``self_attn`` module was never called). Each
(module path, kind) is reported once per run: a ``library_attention`` insight
record as soon as it is seen, and at the end one notice naming them all. The
patched functions call the original with the same arguments and return its
result, and TorchScript still compiles them (``scriptable``: it is shown the
original, or the same builtin op where the original is one, as torch 2.x's
``F.scaled_dot_product_attention`` is); nothing is noted for a model that
calls none of these. Calls torch makes inside one of these (an
``nn.MultiheadAttention`` module calls ``F.multi_head_attention_forward``,
which in torch 2.x calls ``F.scaled_dot_product_attention``) are the outer
call's, not noted again.
"""

import functools

import torch
import torch.nn.functional as F

from ... import records as R

MHA = "nn.MultiheadAttention"
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


class LibraryAttention:
    def __init__(self, ctx):
        self.s = ctx  # CaptureContext
        self.seen = []          # [(module path, kind)] in the order first seen
        self._keys = set()
        self._mha_called = set()  # id() of MultiheadAttention modules called
        self._inside = 0          # wrapped functions running (torch's nested calls are not noted)

    def install(self):
        for fn in ("multi_head_attention_forward", "scaled_dot_product_attention"):
            if hasattr(F, fn):
                self.s.patch(F, fn, functools.partial(self._wrap_functional, "F." + fn))

    def on_module_pre(self, module):
        if isinstance(module, torch.nn.MultiheadAttention):
            self._mha_called.add(id(module))
            self._note(self.s.module_name(module), MHA)

    def on_module_post(self, module):
        if isinstance(module, torch.nn.TransformerEncoderLayer):
            attn = getattr(module, "self_attn", None)
            if attn is not None and id(attn) not in self._mha_called:
                self._note(self.s.module_name(module), "nn.TransformerEncoderLayer (fused fast path)")

    def notice_text(self):
        if not self.seen:
            return None
        where = ", ".join("%s (%s)" % (m, k) for m, k in self.seen)
        return ("attention computed inside torch exposes no weights, so none were captured for: %s" % where)

    def _wrap_functional(self, kind, orig):
        lib = self

        @functools.wraps(orig)
        def attention_fn(*args, **kwargs):
            if lib.s.active and lib.s.open_calls and not lib._inside:
                module = lib.s.open_calls[-1][0]
                if not isinstance(module, torch.nn.MultiheadAttention):  # noted as the module's call
                    try:
                        lib._note(lib.s.module_name(module), kind)
                    except Exception as e:  # noqa: BLE001: never break the script
                        lib.s.notice("attention_failed", "library attention note failed: %s: %s"
                                     % (type(e).__name__, e))
            lib._inside += 1
            try:
                return orig(*args, **kwargs)
            finally:
                lib._inside -= 1

        return scriptable(attention_fn, orig)

    def _note(self, module_path, kind):
        key = (module_path, kind)
        if key in self._keys:
            return
        self._keys.add(key)
        self.seen.append(key)
        self.s.add_insights(R.insights(library_attention=[R.library_attention(module=module_path, kind=kind)]))
