"""Module paths: the names module calls and parameters are recorded under.

A module's path is its name in its root model (``layer1.0.conv1``, the root
itself under its class name), as ``named_modules()`` gives it. When the run
trains more than one root model (a GAN's generator and discriminator, a
student beside a teacher), every path is qualified by its root's name: the
variable or attribute the script holds it in, else its class (``netD.main.0``;
the root itself is ``netD``). Parameters follow the same rule
(``netD.main.0.weight``).

When it is decided (``decide``, at the first top-level training forward):
the root models visible from the calling frames (their locals, the
attributes of each frame's ``self``) and ``__main__``'s globals are counted;
a root model is a module with parameters, not a loss, and not a submodule of
another. Two or more: qualified. Names given before the decision (an
evaluation pass before training) are dropped then and worked out again. A
root first called after a decision for one model is qualified from then on,
and ``late_root`` says so (the session turns it into a notice).

A wrapper that only holds the user's model (``torch.compile``'s
OptimizedModule, DistributedDataParallel, DataParallel: ``unwrap``) adds no
path segment: the model inside is the root of the paths (``layer1.0.conv1``,
not ``_orig_mod.layer1.0.conv1`` or ``module.layer1.0.conv1``), and the
wrapper's own call is named by its class. FSDP1's FullyShardedDataParallel
is such a wrapper too; inside the model, the segments wrappers add
(``_fsdp_wrapped_module``, ``_checkpoint_wrapped_module``, ``_orig_mod``) are
left out of every path (``user_path``), and an inner wrapper's own call is
named by the path of the module it wraps and its class
(``blocks.0 [CheckpointWrapper]``).

A Lightning ``training_step`` that calls a submodule directly
(``self.net(x)``) never calls its LightningModule: the LightningModule that
holds the called model (a calling frame's ``self``) is then the root of the
paths (``net.0``, not ``0``), as when the LightningModule itself is called.

Entries hold weak references: the id of a freed module may be reused by
another, which then gets its own name.
"""

import os
import sys
import weakref

import torch

_TVIS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))


_wrappers_final = None


def _wrapper_classes():
    """(class, attribute holding the wrapped model) of the wrappers this torch has.

    torch.compile's wrapper (OptimizedModule) is looked up in sys.modules, never
    imported: importing torch._dynamo costs about 1.5 CPU seconds of start-up
    (sympy, torch.distributed.tensor, ...) that a plain run of a script without
    a torch.optim optimizer does not pay (on torch 2.x constructing one imports
    it), and a compiled model exists only once the program has imported it.
    Until then (and always on torch 1.x) the list is looked up again on each
    call, a dictionary lookup."""
    global _wrappers_final
    if _wrappers_final is not None:
        return _wrappers_final
    found = []
    compiled = getattr(sys.modules.get("torch._dynamo.eval_frame"), "OptimizedModule", None)
    if compiled is not None:
        found.append((compiled, "_orig_mod"))
    found.append((torch.nn.DataParallel, "module"))
    try:
        from torch.nn.parallel import DistributedDataParallel
        found.append((DistributedDataParallel, "module"))
    except ImportError:
        pass
    # FSDP1, once the program imported it (torch 1.x has it too)
    fsdp1 = getattr(sys.modules.get("torch.distributed.fsdp.fully_sharded_data_parallel"),
                    "FullyShardedDataParallel", None)
    if fsdp1 is not None:
        found.append((fsdp1, "_fsdp_wrapped_module"))
    if compiled is not None and fsdp1 is not None:
        _wrappers_final = tuple(found)
    return tuple(found)


# Path segments that wrappers inside a model add (FSDP1, checkpoint_wrapper, torch.compile)
_WRAPPER_SEGMENTS = ("_fsdp_wrapped_module", "_checkpoint_wrapped_module", "_orig_mod")


def user_path(path):
    """`path` without the segments wrappers add (``blocks.0._fsdp_wrapped_module.up`` -> ``blocks.0.up``)."""
    if "_wrapped_module" not in path and "_orig_mod" not in path:
        return path
    return ".".join(s for s in path.split(".") if s not in _WRAPPER_SEGMENTS)


def user_class_name(module):
    """The class name of `module` as the user wrote it: FSDP2's fully_shard
    swaps a module's class for a subclass named FSDP<class> (FSDPNet for Net)."""
    cls = type(module)
    name = cls.__name__
    if name.startswith("FSDP") and len(cls.__bases__) == 2 and cls.__bases__[0].__name__ == "FSDPModule":
        return cls.__bases__[1].__name__
    return name


def _inner_wrapper(module):
    """Whether `module` is a wrapper inside the model (its wrapped module under one of the segments)."""
    return any(isinstance(getattr(module, s, None), torch.nn.Module) for s in _WRAPPER_SEGMENTS)


def is_compiled(module):
    """True for torch.compile's wrapper (OptimizedModule)."""
    return any(isinstance(module, cls) for cls, attr in _wrapper_classes() if attr == "_orig_mod")


def unwrap(module):
    """The user's model inside wrappers (compiled, data-parallel), else `module`."""
    for _ in range(8):  # DDP around a compiled model, and so on
        for cls, attr in _wrapper_classes():
            if isinstance(module, cls) and isinstance(getattr(module, attr, None), torch.nn.Module):
                module = getattr(module, attr)
                break
        else:
            return module
    return module


def _is_root_candidate(v):
    return isinstance(v, torch.nn.Module) and not isinstance(v, torch.nn.modules.loss._Loss) \
        and next(v.parameters(), None) is not None


def _holders(frame):
    """(name, object) pairs a frame and its callers hold, innermost first, then
    __main__'s globals: locals, and the attributes of each frame's ``self``
    (frames of tvis and torch themselves are passed over)."""
    f = frame
    while f is not None:
        if not f.f_code.co_filename.startswith((_TVIS_DIR, _TORCH_DIR)):
            local = f.f_locals
            for k, v in local.items():
                yield k, v
            owner = local.get("self")
            if owner is not None and not isinstance(owner, torch.nn.Module):
                for k, v in getattr(owner, "__dict__", {}).items():
                    yield k, v
        f = f.f_back
    main = sys.modules.get("__main__")
    for k, v in (vars(main).items() if main is not None else ()):
        yield k, v


def visible_roots(root, frame):
    """{id(model): (model, the first name it is held under)} of the root
    models visible from `frame`, with `root` (the model being called) among
    them; a model holding `root` (an averaged copy wrapping it) is not one."""
    found = {}
    for k, v in _holders(frame):
        if id(v) not in found and _is_root_candidate(v):
            found[id(v)] = (v, k)
    found.setdefault(id(root), (root, type(root).__name__))
    found = {i: (m, k) for i, (m, k) in found.items()
             if m is root or not any(sub is root for sub in m.modules())}
    inside = set()
    for m, _ in found.values():
        inside.update(id(sub) for sub in m.modules() if sub is not m)
    return {i: rn for i, rn in found.items() if i not in inside}


def _is_lightning_module(v):
    return isinstance(v, torch.nn.Module) and any(
        c.__name__ == "LightningModule" and c.__module__.startswith(("lightning", "pytorch_lightning"))
        for c in type(v).__mro__)


def lightning_owner(root, frame):
    """The LightningModule (a calling frame's ``self``) holding `root` as a
    submodule, or None."""
    f = frame
    while f is not None:
        owner = f.f_locals.get("self")
        if owner is not root and _is_lightning_module(owner) and any(m is root for m in owner.modules()):
            return owner
        f = f.f_back
    return None


class ModuleNames:
    def __init__(self):
        self._names = {}        # id(module) -> (weak reference to it, path)
        self.roots = []         # root modules called so far (weak references)
        self.qualified = False  # paths carry their root's name
        self.decided = False
        self._labels = {}       # id(root) -> (weak reference, its qualifying name)
        self.late_root = None   # name of a root qualified after a one-model decision
        self._owners = {}       # id(root) -> weak reference to the LightningModule holding it

    def decide(self, root, frame):
        """Called at the first top-level training forward (`root`, called from
        `frame`): qualifies every path when two or more root models are visible."""
        if self.decided:
            return
        self.decided = True
        found = visible_roots(root, frame)
        if len(found) < 2:
            return
        self.qualified = True
        self._names.clear()
        taken = set()
        for m, label in found.values():
            self._label(m, label, taken)

    def _label(self, root, preferred, taken=None):
        taken = taken if taken is not None else {lab for _, lab in self._labels.values()}
        label = preferred
        if label in taken:
            label = type(root).__name__
        n = 2
        while label in taken:
            label = "%s_%d" % (type(root).__name__, n)
            n += 1
        taken.add(label)
        self._labels[id(root)] = (weakref.ref(root), label)
        return label

    def label_of(self, root):
        entry = self._labels.get(id(root))
        return entry[1] if entry is not None and entry[0]() is root else None

    def name(self, module, root, frame):
        """The path of `module`, called inside the top-level call of `root`
        (module itself when it is the top-level call) from `frame`."""
        entry = self._names.get(id(module))
        if entry is not None and entry[0]() is module:
            return entry[1]
        if not any(r() is root for r in self.roots):
            self._new_root(root, frame)
        prefix = self.label_of(root) if self.qualified else None
        model = self._model_of(root)
        if unwrap(root) is not root:  # the wrapper's own call: its class, after its root's label
            self._keep(root, prefix + "." + type(root).__name__ if prefix else type(root).__name__)
        for sub_name, sub in model.named_modules():
            if sub_name:
                sub_name = user_path(sub_name)
                if _inner_wrapper(sub):
                    sub_name = "%s [%s]" % (sub_name, type(sub).__name__)
            if prefix is None:
                self._keep(sub, sub_name or user_class_name(model))
            else:
                self._keep(sub, prefix + "." + sub_name if sub_name else prefix)
        return self._keep(module, type(module).__name__)

    def _model_of(self, root):
        """What the paths of `root`'s call are named in: the LightningModule holding it, else the model inside
        its wrappers."""
        owner = self._owners.get(id(root))
        owner = owner() if owner is not None else None
        return owner if owner is not None else unwrap(root)

    def _new_root(self, root, frame):
        self.roots = [r for r in self.roots if r() is not None]
        owner = lightning_owner(unwrap(root), frame)
        if owner is not None:
            self._owners[id(root)] = weakref.ref(owner)
        if self.decided and self.qualified and self.label_of(root) is None:
            self._label(root, self._held_as(root, frame))
        elif self.decided and not self.qualified and self.roots and _is_root_candidate(root):
            self.qualified = True  # from now on; the first root's paths stay as they were
            self.late_root = self._label(root, self._held_as(root, frame))
        self.roots.append(weakref.ref(root))

    @staticmethod
    def _held_as(root, frame):
        for k, v in _holders(frame):
            if v is root:
                return k
        return type(root).__name__

    def _keep(self, module, name):
        """The path of `module` when it has a live entry, else `name`, now its entry."""
        entry = self._names.get(id(module))
        if entry is None or entry[0]() is not module:
            entry = self._names[id(module)] = (weakref.ref(module), name)
        return entry[1]

    def live_roots(self):
        return [m for m in (r() for r in self.roots) if m is not None]

    def named_params(self):
        """{id(parameter): (path, parameter)} over the roots called so far, in
        their named_parameters() order, each parameter once (its first path)."""
        named = {}
        for root in self.live_roots():
            prefix = self.label_of(root) if self.qualified else None
            for n, p in self._model_of(root).named_parameters():
                if id(p) not in named:
                    n = user_path(n)
                    named[id(p)] = (prefix + "." + n if prefix else n, p)
        return named
