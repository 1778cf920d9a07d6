"""Routing calls of chosen callables through a recorder, for a while.

``Interceptor(targets, on_call)`` with targets from ``discover.py``:
``install()`` makes every call of a target go through
``on_call(target, fn, args, kwargs, value)`` (``fn(*args, **kwargs)`` is the
original call, ``value`` its first argument after ``self``); ``remove()``
puts everything back exactly (run it in a ``finally``).

How: an object whose class can take attributes keeps its identity; its
class's ``__call__`` is replaced by a wrapper that sends calls of the
targeted instances (by id, on the installing thread, not re-entrant for the
same object) to ``on_call`` and every other call straight to the original.
Plain functions, partials, builtins and objects of classes that cannot be
patched are swapped for a wrapper in the slots holding them (an attribute
or a list/dict entry) and swapped back on remove.

The originals of all classes are resolved before any is patched, so a
wrapper calls the true original even when a base class is patched too.
"""

import functools
import threading
import types

_PLAIN = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial)


def _class_call(cls):
    for k in cls.__mro__:
        if "__call__" in k.__dict__:
            return k.__dict__["__call__"]
    return None


def _put(owner, key, value):
    if isinstance(owner, (list, dict)):
        owner[key] = value
    else:
        setattr(owner, key, value)


class Interceptor:
    def __init__(self, targets, on_call):
        self.targets = targets
        self.on_call = on_call
        self.ids = {id(fn) for fn, _ in targets}
        self.thread = threading.get_ident()
        self.open = set()   # ids of targets whose call is in progress
        self._undo = []

    # ----------------------------------------------------------- calls --
    def _dispatch(self, target, fn, args, kwargs, value):
        key = id(target)
        if key in self.open or threading.get_ident() != self.thread:
            return fn(*args, **kwargs)
        self.open.add(key)
        try:
            return self.on_call(target, fn, args, kwargs, value)
        finally:
            self.open.discard(key)

    def _class_wrapper(self, orig):
        icpt = self

        def __call__(obj, *args, **kwargs):
            if id(obj) not in icpt.ids:
                return orig(obj, *args, **kwargs)
            value = args[0] if args else next(iter(kwargs.values()), None)
            return icpt._dispatch(obj, orig, (obj,) + args, kwargs, value)

        return __call__

    def _slot_wrapper(self, fn):
        icpt = self

        def traced(*args, **kwargs):
            value = args[0] if args else next(iter(kwargs.values()), None)
            return icpt._dispatch(fn, fn, args, kwargs, value)

        try:
            functools.update_wrapper(traced, fn)
        except (AttributeError, TypeError):
            pass
        return traced

    # --------------------------------------------------------- install --
    def install(self):
        by_class, plain = {}, []
        for fn, slots in self.targets:
            if isinstance(fn, _PLAIN):
                plain.append((fn, slots))
            else:
                by_class.setdefault(type(fn), []).append((fn, slots))
        origs = {cls: _class_call(cls) for cls in by_class}
        for cls, members in by_class.items():
            if origs[cls] is None or not self._patch_class(cls, origs[cls]):
                plain.extend(members)
        for fn, slots in plain:
            wrapper = self._slot_wrapper(fn)
            for owner, key in slots:
                self._swap(owner, key, fn, wrapper)

    def _patch_class(self, cls, orig):
        had = "__call__" in cls.__dict__
        prev = cls.__dict__.get("__call__")
        try:
            cls.__call__ = self._class_wrapper(orig)
        except (TypeError, AttributeError):
            return False
        self._undo.append(lambda: setattr(cls, "__call__", prev) if had else delattr(cls, "__call__"))
        return True

    def _swap(self, owner, key, fn, wrapper):
        try:
            current = owner[key] if isinstance(owner, (list, dict)) else getattr(owner, key)
            if current is not fn:
                return
            _put(owner, key, wrapper)
        except (TypeError, AttributeError, IndexError, KeyError):
            return
        self._undo.append(lambda: _put(owner, key, fn))

    def remove(self):
        while self._undo:
            self._undo.pop()()
