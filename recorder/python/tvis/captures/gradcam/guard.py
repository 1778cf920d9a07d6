"""Keeps the user's autograd hooks out of tvis's extra Grad-CAM gradient pass.

An extra ``torch.autograd.grad`` over the user's graph would run every hook on
the nodes it executes (PyTorch 1.13): tensor hooks (``Tensor.register_hook``),
node hooks (``grad_fn.register_hook``, module backward hooks) and
``retain_grad()``'s hook, which writes ``.grad``. (tvis's own dL/d(output)
hooks are native post hooks, which this guard cannot see: the session turns
them off around the captures' ``on_backward``, ``rec.set_grads_quiet``.)

``HookGuard.install()`` wraps the Python entry points that create those hooks;
each wrapper calls the original with the same arguments and returns its result,
and only remembers (weakly) what was registered:
- the OrderedDict of Python hooks behind every ``RemovableHandle`` made by
  ``Tensor.register_hook`` and by ``Function._register_hook`` (the one path
  every node's ``register_hook`` takes; the node keeps that dict and calls what
  is in it when it runs);
- the tensors that called ``retain_grad()``;
- whether a ``saved_tensors_hooks`` context (non-reentrant checkpoint,
  ``save_on_cpu``, ...) was entered since ``mark()``: an extra pass would call
  their unpack hooks (and recompute checkpointed forwards) out of order.

``quiet()`` is the context for the extra pass: it empties every remembered hook
dict and puts the same entries back in the same order afterwards (handles stay
valid), and restores ``.grad`` of every ``retain_grad()`` tensor to the very
object it held before (autograd replaces ``.grad``, it never writes into it).
Invariant: after ``quiet()`` exits, by return or exception, every hook dict and
every retained ``.grad`` is exactly as it was on entry.
"""

import contextlib
import functools
import random
import sys
import weakref

import torch
import torch.autograd.function as _function
import torch.autograd.graph as _graph


class HookGuard:
    def __init__(self):
        self._dicts = []          # weakref.ref(OrderedDict of hooks)
        self._retained = []       # weakref.ref(Tensor) that called retain_grad()
        self._undo = []
        self.saved_hooks_entered = 0

    # --------------------------------------------------------- patches ---
    def install(self):
        guard = self
        tensor_register = torch.Tensor.register_hook
        node_register = _function._HookMixin.__dict__["_register_hook"]  # staticmethod object
        retain = torch.Tensor.retain_grad
        enter = _graph.saved_tensors_hooks.__enter__

        def register_hook(tensor, hook):
            handle = tensor_register(tensor, hook)
            guard._remember(guard._dicts, getattr(handle, "hooks_dict_ref", None))
            return handle

        def _register_hook(backward_hooks, hook):
            result = node_register.__func__(backward_hooks, hook)
            guard._remember(guard._dicts, getattr(result[1], "hooks_dict_ref", None))
            return result

        def retain_grad(tensor):
            result = retain(tensor)
            if tensor.grad_fn is not None:
                guard._remember(guard._retained, weakref.ref(tensor))
            return result

        def saved_enter(ctx):
            guard.saved_hooks_entered += 1
            return enter(ctx)

        for owner, attr, new in ((torch.Tensor, "register_hook", register_hook),
                                 (_function._HookMixin, "_register_hook", staticmethod(_register_hook)),
                                 (torch.Tensor, "retain_grad", retain_grad),
                                 (_graph.saved_tensors_hooks, "__enter__", saved_enter)):
            self._patch(owner, attr, new)

    def _patch(self, owner, attr, new):
        own = attr in owner.__dict__  # retain_grad is inherited from torch._C._TensorBase
        old = owner.__dict__[attr] if own else getattr(owner, attr)
        # user code introspecting it sees the original (name, module, doc, signature)
        fn, orig = getattr(new, "__func__", new), getattr(old, "__func__", old)
        functools.update_wrapper(fn, orig)
        fn.__module__ = getattr(orig, "__module__", None)  # a C method has none
        setattr(owner, attr, new)
        self._undo.append((lambda: setattr(owner, attr, old)) if own else (lambda: delattr(owner, attr)))

    def uninstall(self):
        for undo in reversed(self._undo):
            undo()
        self._undo = []

    @staticmethod
    def _remember(refs, ref):
        if ref is None:
            return
        refs.append(ref)
        if len(refs) >= 256 and (len(refs) & (len(refs) - 1)) == 0:  # at powers of two: drop the dead
            refs[:] = [r for r in refs if r() is not None]

    def mark(self):
        """Starts a new forward: forgets earlier saved_tensors_hooks entries."""
        self.saved_hooks_entered = 0

    # ----------------------------------------------------------- quiet ---
    @staticmethod
    @contextlib.contextmanager
    def function_state_kept(nodes):
        """Puts back, after the extra pass, what custom ``autograd.Function``
        backwards among ``nodes`` may change: their Python attributes (their
        ``ctx``: a backward that frees what it used, ``del ctx.x``, must still
        find it when the user's own backward runs it) and the global random
        streams (torch CPU and initialized CUDA generators, ``random``, NumPy)
        a backward drawing noise would advance. Nothing when there is none.
        Yields the function that puts them back, for between passes."""
        kept = []
        for n in nodes:
            d = getattr(n, "__dict__", None) if isinstance(n, _function.BackwardCFunction) else None
            if d is not None:
                kept.append((d, dict(d)))
        streams = _RandomStreams() if kept else None

        def restore():
            for d, items in kept:
                d.clear()
                d.update(items)
            if streams is not None:
                streams.restore()

        try:
            yield restore
        finally:
            restore()

    @contextlib.contextmanager
    def quiet(self):
        self._dicts = [r for r in self._dicts if r() is not None]
        self._retained = [r for r in self._retained if r() is not None]
        emptied = []
        for r in self._dicts:
            d = r()
            if d:
                emptied.append((d, list(d.items())))
        grads = []
        for r in self._retained:
            t = r()
            if t is not None and t.retains_grad:
                grads.append((t, t.grad))
        try:
            for d, _ in emptied:
                d.clear()
            yield
        finally:
            for d, items in emptied:
                d.clear()
                d.update(items)
            for t, g in grads:
                if t.grad is not g:
                    t.grad = g


class _RandomStreams:
    """The global random streams' states, read (no draw) and put back."""

    def __init__(self):
        self.cpu = torch.get_rng_state()
        self.cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
        self.python = random.getstate()
        np = sys.modules.get("numpy")
        self.numpy = (np, np.random.get_state()) if np is not None else None

    def restore(self):
        torch.set_rng_state(self.cpu)
        if self.cuda is not None:
            torch.cuda.set_rng_state_all(self.cuda)
        random.setstate(self.python)
        if self.numpy is not None:
            np, state = self.numpy
            np.random.set_state(state)
