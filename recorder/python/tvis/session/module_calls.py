"""What the session needs to know about the modules the script calls (the
module hooks in session.py use these; one concept: a module call's identity
and the run facts it reveals).

``ModuleCalls`` is a part of Session (a mixin: its methods run on the
Session and read and write the Session's fields named below); it adds no
field of its own. Contracts:

- ``_named_params()`` / ``_param_names()``: {id: (path, parameter)} / {id:
  path} of the trained models' parameters; one walk while an optimizer step
  opens (``_params_memo``, optimizer_steps.py), else a walk per call.
- ``_module_name(module)``: the call's recorded path (names.py); a root
  first called after the paths were fixed is named in a notice.
- ``_call_identity(module, frame)``: the path, class and class definition a
  call's event begins with, once per module (``_identities``).
- ``_class_def(cls)``: (file id, line) of the class's ``forward``, asked of
  the recorder once per class (``_class_defs``).
- ``_budget_parameters(root)``: the byte budget counts each trained model's
  parameter bytes once (``_budgeted_roots``, ``_parameter_bytes``).
- ``_top_level_phase(is_loss)``: the phase a top-level call begins.
- ``_drop_raised_calls(frame)``: open calls whose frames ended without their
  forward hook (they raised) leave ``_stack`` / ``_frames``; their events end.
- ``_note_compiled`` / ``_note_device``: the run's notices and device.
"""

import sys
import threading
import weakref

import torch

from .. import schema as P
from .names import unwrap
from .shards import local_numel


class ModuleCalls:
    """A part of Session: module-call identity, phases and the run facts a call reveals (see the module doc)."""

    def _module_name(self, module):
        ident = self._identities.get(id(module))
        if ident is not None and ident[0]() is module:
            return ident[1]
        return self._call_identity(module, sys._getframe(1))[1]

    def _call_identity(self, module, frame):
        """(weak reference, path, class name, def file id, def line) of
        `module`, kept in ``_identities`` (by id, the reference telling a
        reused id): what each call's event is begun with. `frame`: the frame
        asking (names.name's, for a root first seen). Paths never change once
        given, except when names.decide() qualifies them (the session then
        clears ``_identities``)."""
        root = self._stack[0][0] if self._stack else module
        name = self.names.name(module, root, frame)
        if self.names.late_root is not None:
            self.notice("module_names_late_root", "model %s was first called after the run's module paths were "
                        "fixed for a single model: its paths are qualified (%s.<path>), the first model's are not"
                        % (self.names.late_root, self.names.late_root))
        cls = type(module)
        ident = self._identities[id(module)] = (weakref.ref(module), name, cls.__name__) + self._class_def(cls)
        return ident

    def _class_def(self, cls):
        d = self._class_defs.get(cls)
        if d is None:
            try:
                code = cls.forward.__code__
                d = (self.rec.file_id(code.co_filename), code.co_firstlineno)
            except AttributeError:
                d = (0, 0)
            self._class_defs[cls] = d
        return d

    def _param_names(self):
        return {k: path for k, (path, _) in self._named_params().items()}

    def _named_params(self):
        """names.named_params(): walked once while an optimizer step opens
        (``_params_memo``, shared by its probes and its snapshot), else now."""
        return self._params_memo if self._params_memo is not None else self.names.named_params()

    def _budget_parameters(self, root):
        """The byte budget keeps room for each step's weights and gradients:
        the parameters of every model trained so far."""
        if id(root) in self._budgeted_roots:
            return
        self._budgeted_roots.add(id(root))
        self._parameter_bytes += sum(local_numel(p) * p.element_size() for p in root.parameters())
        self.rec.set_parameter_bytes(self._parameter_bytes)

    @staticmethod
    def _top_level_phase(is_loss):
        """The phase a top-level module or loss call begins: Evaluation with
        gradients off (no_grad, inference mode: no backward can reach it)."""
        if not torch.is_grad_enabled():
            return P.EVALUATION
        return P.LOSS if is_loss else P.FORWARD

    def _drop_raised_calls(self, frame):
        """A module call that raised never reached its forward hook: open calls
        whose frame is not an ancestor of `frame` (a new call's) have ended, so
        they leave the stack and their events end (the session's thread only)."""
        top = self._frames[-1]
        f = frame.f_back
        while f is not None:
            if f is top:
                return  # the usual case: the new call is nested in the open one
            f = f.f_back
        if threading.get_ident() != self._thread:
            return
        live = set()
        f = frame.f_back
        while f is not None:
            live.add(id(f))
            f = f.f_back
        keep = len(self._frames)
        while keep and id(self._frames[keep - 1]) not in live:
            keep -= 1
        self.rec.end(self._stack[keep][1])
        del self._stack[keep:]
        del self._frames[keep:]

    def _note_compiled(self, module):
        """torch.compile: the module hooks run inside the compiled model, so Dynamo breaks its graph at
        each module call (it cannot trace into tvis); the layers are recorded, the graphs are smaller."""
        self.notice("torch_compile", "%s runs under torch.compile: tvis's hooks at each module call split the "
                    "compiled graph there (Dynamo graph breaks), so every layer is recorded as in eager mode and the "
                    "recorded steps ran as several smaller compiled graphs: their timings are not the compiled "
                    "model's, and where the compiler would have fused operations across those calls an unrecorded "
                    "run may differ in the last bits; attention computed by fused kernels inside the compiled graphs "
                    "is not rebuilt (the Attention page shows none of it)" % type(unwrap(module)).__name__)

    def _note_device(self, module):
        for p in module.parameters():
            d = p.device
            if d.type == "cuda":
                self._device = "%s (%s)" % (d, torch.cuda.get_device_name(d))
            else:
                self._device = str(d)
            return
        self._device = "cpu"
