"""The recording session: hooks installed into the user's interpreter.

Contract (FIDELITY): nothing here draws random numbers, sets a torch flag or
writes a tensor of the user's program. Hooks read tensors and hand them to the
native recorder, which copies what it keeps. Patched callables (optimizer
``step``, ``Tensor.backward``, ``torch.autograd.backward``, DataLoader
``__next__``, ``torch.nn.functional`` losses) call the original with the same
arguments and return its result unchanged.

Steps (docs/cli.md): with one ``torch.optim`` optimizer, a step ends when its
outermost ``step()`` returns; with several (a GAN), a step is the iteration and
ends when each of them has stepped (each update recorded inside it). Without
``torch.optim``, a step is one ``backward()`` plus the code after it until the
next top-level module call or data fetch (a hand-written update belongs to
it). ``optimizer.step(closure)`` records each closure call as a forward, loss
and backward inside the step. A top-level forward, loss call or fetch with
gradients off is an Evaluation (statistics only; not followed). A top-level
forward with gradients on that no backward of its step reached (it built no
graph, or one the step's backwards never ran through: a logging or probe
forward, a frozen teacher) becomes an Evaluation at the step's end; its
tensors keep what a forward keeps, and without a DataLoader the followed
samples are those of the first forward a backward reached.

Where a stopped script ends: after the N-th step it runs on, unrecorded, until
it begins the next step's work: a fetch from a DataLoader whose batch fed a
recorded backward, the next ``backward()`` or the next optimizer step. There
the run is finalized, stdout/stderr flushed, ``os._exit(0)``.

Own time (recorder/include/tvis/recorder/own_time.h): every section of
tvis's work in the user's process (``_guard``'s blocks, the module hooks, the
capture hooks they call, Grad-CAM's passes inside ``on_backward``) is
bracketed by ``rec.own_enter()`` / ``rec.own_exit()``, so each event and
phase timing carries the part of its wall time that was tvis's (``own_ns``)
and the timeline shows the user's time apart from it.

Session only dispatches its lifecycle (run start, top-level forward, module
call, fetch, backward, optimizer step, step end, run end) on the hook bus
(``hook_bus.py``); the diagnose probes and the captures (data pipeline,
Grad-CAM, attention, embeddings) are its subscribers, registered in one place
(``tvis.subscribers``). Captures see the session only through
``CaptureContext`` (``context.py``). ``followed`` holds this step's followed
samples.
"""

import contextlib
import functools
import inspect
import os
import socket
import sys
import threading
import time
import weakref

import torch
import torch.nn.functional as F

from .. import records as R
from .. import schema as P
from ..subscribers import SUBSCRIBERS
from .context import CaptureContext
from .fetch import FetchRecorder
from .hook_bus import HookBus
from .loss import analyze_loss, feeds, grad_fn_name
from .names import ModuleNames, is_compiled, unwrap
from .project_code import ProjectFiles
from .shards import Shards, local_numel, local_values

_LOSS_FUNCTIONS = (
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
)


# Torch's own frames of a module call, between the caller's line and the hooks: Module.__call__
# (1.13: _call_impl itself; 2.x: _wrapped_call_impl, which calls _call_impl), _call_impl and the
# functions nested in it (2.x runs the hooks in its `inner`, which shares its `args` and `kwargs`).
_CALL_CODES = frozenset([torch.nn.Module.__call__.__code__, torch.nn.Module._call_impl.__code__] +
                        [c for c in torch.nn.Module._call_impl.__code__.co_consts if inspect.iscode(c)])

# Loss calls kept as candidates for the loss the next backward() runs on: the
# latest ones only (each holds its output's graph; an evaluation loop with
# grad enabled and no backward would otherwise keep every batch's graph).
_MAX_LOSS_CANDIDATES = 8


def _output_tensors(output):
    """The tensors a forward returned: the output itself, or those one level
    inside a tuple, list or mapping (a ModelOutput is one)."""
    if isinstance(output, torch.Tensor):
        return [output]
    if isinstance(output, (tuple, list)):
        return [t for t in output if isinstance(t, torch.Tensor)]
    if isinstance(output, dict):
        return [t for t in output.values() if isinstance(t, torch.Tensor)]
    return []


def _call_kwargs(frame):
    """The keyword arguments of the module call whose pre-hook runs, read from
    `frame` (the hook's caller) when it is torch's module call (global pre-hooks
    get no kwargs, in 1.13 and 2.x alike); None when it is not (a custom __call__)."""
    return frame.f_locals.get("kwargs") if frame.f_code in _CALL_CODES else None


def _call_site(frame):
    """The frame of the line that called the module whose hook `frame` runs:
    the first caller past torch's module-call frames (`frame` itself for a
    custom __call__)."""
    site = frame
    while site.f_code in _CALL_CODES and site.f_back is not None:
        site = site.f_back
    return site


class Session:
    def __init__(self, native, run_file, steps, max_elems, samples, project_dir, script, options):
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the tvis package: not project code
        # TVIS_ZSTD_LEVEL: the writer's zstd level (default 1; benchmarks compare others).
        level = int(os.environ.pop("TVIS_ZSTD_LEVEL", "1") or 1)
        # TVIS_ZSTD_DENSE_LEVEL: the level of float32 weights and activations (run_builder.h).
        dense = os.environ.pop("TVIS_ZSTD_DENSE_LEVEL", "")
        # --eval-values: tensors of evaluation passes keep their values too (else statistics only).
        eval_values = ("eval_values", "1") in [tuple(o) for o in options]
        # TVIS_UPDATE_VALUES=1: Δw records keep their values too (tests compare them with after - before).
        update_values = os.environ.pop("TVIS_UPDATE_VALUES", "") == "1"
        # --max-run-bytes: the byte budget of kept values (0: none), shared over the requested steps
        budget = int(dict(options).get("max_run_bytes", "0") or 0)
        # TVIS_SNAPSHOT_SPILL_BYTES: parameters of at least this many bytes keep their weights before
        # the optimizer step in a file beside the run, not in memory (recorder.h; tests force 0)
        spill = os.environ.pop("TVIS_SNAPSHOT_SPILL_BYTES", "")
        self.rec = native.Recorder(run_file, max_elems, samples, project_dir, [here], level,
                                   dense_zstd_level=int(dense) if dense else None, evaluation_values=eval_values,
                                   update_values=update_values, max_run_bytes=budget, budget_steps=steps,
                                   spill_snapshot_bytes=int(spill) if spill else 256 << 20)
        self.run_file = run_file
        self.steps_requested = steps
        self.samples = samples
        self.project_dir = project_dir
        self.project_files = ProjectFiles(project_dir)
        self.script = script
        self.options = options
        self.started_ms = int(time.time() * 1000)
        self.active = True
        self.finalized = False
        self.steps_done = 0
        self.stop_pending = False
        self.notices = []
        self._notice_codes = set()
        self.optimizer_class = ""
        self._optimizers_seen = False
        self._optimizers = weakref.WeakSet()  # live optimizers the script created
        self._stepped = []          # optimizers (weak references) that stepped in this step
        self._training_data = []    # datasets whose batch preceded a recorded backward
        self._last_dataset = None   # the dataset of the latest training fetch
        self._budgeted_roots = set()  # ids of models whose parameters the byte budget counts
        self._parameter_bytes = 0
        self._stack = []            # [(module, event id)] open module calls
        self._frames = []           # the call frame of each entry of _stack
        self._thread = threading.get_ident()
        self.names = ModuleNames()  # module and parameter paths (names.py)
        self.shards = Shards()      # sharded parameters' local parts and placements (shards.py)
        self._group_names = {}      # id(parameter) -> [recorded names] of the last snapshot (FSDP1 flat: several)
        self._class_defs = {}       # class -> (file id, line)
        self._code_files = {}       # co_filename -> its file id (call sites); keyed by the name, not the code
                                    # object: Dynamo traces this hook inside a compiled model and cannot guard
                                    # on a dict keyed by code objects (InternalTorchDynamoError)
        self._loss_candidates = []  # [(output tensor, info dict)] of this step
        # This step's top-level forwards: event id -> "pending" (its output not
        # seen yet), "built" (a graph a backward may reach), "reached" (one did),
        # "no graph" (nothing in it required grad), "unknown" (no tensor output:
        # never relabelled). Those no backward reached become Evaluation at the
        # step's end (_close_forwards).
        self._top_forwards = {}
        self._model_batches = []    # events whose model input gave this step's followed samples (no DataLoader)
        self._backwards = 0         # backward() calls recorded in this step
        self._step_depth = 0
        self._bw_depth = 0
        self._loss_depth = 0
        self._fetch_depth = 0       # inside a DataLoader fetch (transforms are modules too)
        self._manual = None         # open hand-written step: [(name, param, before, wid, gid)]
        self._kwargs_only = 0
        self._backward_leaves = []  # leaves of the last backward (hand-written steps)
        self._extra_names = {}      # id(tensor) -> name for leaves outside modules
        self._device = None
        self._undo = []
        # This step's followed samples: [{"id", "batch_position", "label_index"}]
        # (label_index None when unknown); set at each recorded batch.
        self.followed = []
        self.followed_step = -1     # the step `followed` was set for
        self.bus = None             # HookBus (hook_bus.py): the probes and captures, set at install()
        self.fetch = None           # FetchRecorder (fetch.py), set at install()
        self.grad_scale = 0.0       # the scale of GradScaler.step in progress, 0 outside it (grad_scaler.py)
        self.optimizer_steps_taken = 0  # optimizer.step() calls recorded so far (skipped ones not)
        # Benchmarks: where to write the writer's statistics at finalize (JSON).
        self.stats_file = os.environ.pop("TVIS_STATS_FILE", None)
        # [(what, unix time)] of setup, steps and finalize; in the statistics file.
        self.timeline = []

    def mark(self, what):
        self.timeline.append((what, time.time()))

    # ------------------------------------------------------------ install --
    def install(self):
        self.bus = HookBus.attach_all(self, SUBSCRIBERS, CaptureContext(self))
        mm = torch.nn.modules.module
        h1 = mm.register_module_forward_pre_hook(self._pre)
        h2 = mm.register_module_forward_hook(self._post)
        self._undo += [h1.remove, h2.remove]
        self._patch(torch.optim.Optimizer, "__init__", self._wrap_optimizer_init)
        self._patch(torch.Tensor, "backward", self._wrap_backward)
        self._patch(torch.autograd, "backward", self._wrap_backward)
        self.fetch = FetchRecorder(self)
        self._patch(torch.utils.data.dataloader._BaseDataLoaderIter, "__next__", self.fetch.wrap_next)
        for name in _LOSS_FUNCTIONS:
            if hasattr(F, name):
                self._patch(F, name, functools.partial(self._wrap_loss_fn, "torch.nn.functional." + name))
        # modules that did `from torch.nn.functional import cross_entropy` before
        # the script ran (torch.nn.modules.loss uses `F.` and sees the patch)
        os.register_at_fork(after_in_child=self._forked)
        self.bus.call("install")
        self.rec.write_meta(self._meta(complete=False))
        self.rec.start_profile()

    def _patch(self, owner, attr, make_wrapper):
        orig = getattr(owner, attr)
        wrapper = make_wrapper(orig)
        setattr(owner, attr, wrapper)
        self._undo.append(lambda: setattr(owner, attr, orig))

    def _forked(self):
        # A DataLoader worker or any fork: the child records nothing and never
        # touches the parent's file.
        self.active = False
        self.rec.stop_profile()
        self.rec.set_paused(True)

    # ------------------------------------------------------------ failure --
    @contextlib.contextmanager
    def _guard(self, where):
        """A section of tvis's own work: its time is tvis's (own time), and a
        failure inside it never reaches the script: the run is finalized with
        what it has and a notice, and the script continues unrecorded."""
        rec = self.rec
        rec.own_enter()
        try:
            yield
        except Exception as e:  # noqa: BLE001 (anything of ours)
            self._internal_error(where, e)
        finally:
            rec.own_exit()

    def _internal_error(self, where, e):
        """What _guard does with `e` (the module hooks, called for every
        module call, catch it themselves: a context manager costs more than
        the rest of a hook on a tiny module)."""
        if self.active:
            msg = "recording stopped after an internal error in %s: %s: %s" % (where, type(e).__name__, e)
            self.notice("recorder_error", msg)
            sys.stderr.write("tvis: %s; the script continues unrecorded\n" % msg)
            try:
                self.finalize(exception="tvis internal error: %s: %s" % (type(e).__name__, e))
            except Exception:
                self.active = False

    # -------------------------------------------------------------- names --
    def _module_name(self, module):
        root = self._stack[0][0] if self._stack else module
        name = self.names.name(module, root, sys._getframe(1))
        if self.names.late_root is not None:
            self.notice("module_names_late_root", "model %s was first called after the run's module paths were "
                        "fixed for a single model: its paths are qualified (%s.<path>), the first model's are not"
                        % (self.names.late_root, self.names.late_root))
        return name

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
        return self.names.param_names()

    # -------------------------------------------------------- module hooks --
    # Module calls inside a DataLoader fetch are its pipeline (transforms are
    # modules too): the pipeline capture records the followed samples' ones.
    # After the last step (stop_pending) module calls run unrecorded.
    # The project-code profile function is suspended while they run (PyRecorder::suspend_profile):
    # per module call, the hooks' own Python calls would otherwise each pay the profiler's frame cost.
    def _pre(self, module, args):
        # A module call inside backward() with no call open is a forward recomputed by activation
        # checkpointing (torch.utils.checkpoint, checkpoint_wrapper): the same call the forward recorded,
        # so it is not recorded again (nor the calls inside it: the stack stays empty).
        if self.active and not self._fetch_depth and not self.stop_pending and not (self._bw_depth and not self._stack):
            rec = self.rec
            rec.hook_enter()  # own_enter + suspend_profile
            try:
                self._pre_impl(module, args)
            except Exception as e:  # noqa: BLE001: as _guard
                self._internal_error("a module pre-hook", e)
            finally:
                rec.hook_exit()  # resume_profile + own_exit

    def _post(self, module, args, output):
        if self.active and not self._fetch_depth and self._stack:
            rec = self.rec
            rec.hook_enter()
            try:
                self._post_impl(module, args, output)
            except Exception as e:  # noqa: BLE001: as _guard
                self._internal_error("a module hook", e)
            finally:
                rec.hook_exit()

    def _pre_impl(self, module, args):
        call = sys._getframe(2)  # torch's module call (_call_impl; 2.x: its inner), or a custom __call__
        if self._stack:
            self._drop_raised_calls(call)
        top_forward = False
        if not self._stack and not self._fetch_depth:
            self._boundary()
            if self.stop_pending:
                return None  # the last step has ended: the script runs on unrecorded
            if self._bw_depth == 0 and self._step_depth == 0:
                self.rec.set_phase(self._top_level_phase(isinstance(module, torch.nn.modules.loss._Loss)))
                if self._device is None:
                    self._note_device(module)
                top_forward = self.rec.phase() == P.FORWARD
                if top_forward:
                    if is_compiled(module):
                        self._note_compiled(module)
                    self.names.decide(module, call)
                    self._budget_parameters(module)
                for a in args:
                    if isinstance(a, torch.Tensor) and a.dim() > 0 and not isinstance(module, torch.nn.modules.loss._Loss):
                        if self.rec.phase() == P.FORWARD:
                            self.rec.set_batch_rows(a.shape[0])
                        break
        elif isinstance(module, torch.nn.modules.loss._Loss) and self._loss_in_model_forward():
            self.rec.set_phase(P.LOSS)  # nn.CrossEntropyLoss in the model's own forward body (BERT's labels=)
        site = _call_site(call)
        filename = site.f_code.co_filename
        cf = self._code_files.get(filename)
        if cf is None:  # the file id of each calling file, asked once
            cf = self._code_files[filename] = self.rec.file_id(filename)
        df, dl = self._class_def(type(module))
        eid = self.rec.begin(P.MODULE_CALL, self._module_name(module), type(module).__name__, cf, site.f_lineno,
                             df, dl)
        kwargs = _call_kwargs(call)
        whole = not self._stack  # the top-level call's inputs are the batch: every row (recorder.h)
        if kwargs:
            # keyword inputs (global pre-hooks get none): slots after the positional ones
            self.rec.tensors(eid, P.INPUT, (args, kwargs), whole)
            keywords = " ".join(k for k, v in kwargs.items() if isinstance(v, torch.Tensor))
            if keywords:  # not for options only (need_weights=False)
                self.rec.add_detail(eid, [("keyword_inputs", keywords)])
        elif args:
            self.rec.tensors(eid, P.INPUT, args, whole)
        elif kwargs is None:
            self._kwargs_only += 1
        if top_forward:
            self._top_forwards[eid] = "pending"
            self.bus.call("on_forward", module, eid)
        if top_forward and not self._training_data and (self.followed_step != self.steps_done or self._model_batches):
            # No DataLoader feeds training (else its batches are followed): each top-level forward's
            # input is followed for now; the step's end keeps the first one a backward reached.
            self.fetch.follow_model_input(eid, args)
            self._model_batches.append(eid)
        self._stack.append((module, eid))
        self._frames.append(call)
        self.bus.call("on_module_pre", module, eid, local_values(args), local_values(kwargs or {}))
        return None

    def _post_impl(self, module, args, output):
        eid = None
        while self._stack:
            m, e = self._stack.pop()
            self._frames.pop()
            if m is module:
                eid = e
                break
        if eid is None:
            return None
        # the output's tensors, and a native hook on its first tensor's grad_fn recording dL/d(output)
        self.rec.module_output(eid, output)
        if eid in self._top_forwards:
            self._watch_forward(eid, output)
        self.bus.call("on_module_post", module, eid, local_values(args), local_values(output))
        self.rec.end(eid)
        if isinstance(module, torch.nn.modules.loss._Loss) and isinstance(output, torch.Tensor):
            info = {"call": "torch.nn." + type(module).__name__, "event": eid, "args": args,
                    "kwargs": {k: getattr(module, k) for k in ("reduction", "ignore_index", "label_smoothing",
                                                               "weight") if hasattr(module, k)},
                    "fn": type(module).__name__}
            self._add_loss_candidate(output, info)
        return None

    def _watch_forward(self, eid, output):
        """Whether a backward reaches this top-level forward: a hook on each
        output's grad_fn (reading only: it returns None)."""
        tensors = _output_tensors(output)
        if not tensors:
            self._top_forwards[eid] = "unknown"
            return
        built = [t for t in tensors if t.grad_fn is not None]
        self._top_forwards[eid] = "built" if built else "no graph"
        for t in built:
            t.grad_fn.register_hook(functools.partial(self._forward_reached, eid))

    def _forward_reached(self, eid, *_):
        if eid in self._top_forwards:
            self._top_forwards[eid] = "reached"

    def _close_forwards(self):
        """The step's end: a top-level forward that built no graph, or one no
        backward of the step reached (a logging or probe forward with gradients
        on, a frozen teacher), is an evaluation; the followed samples are the
        first reached forward's (without a DataLoader)."""
        unreached = [e for e, state in self._top_forwards.items() if state in ("built", "no graph")]
        if unreached and self._backwards:
            self.rec.relabel_as_evaluation(unreached)
        else:
            unreached = []
        keep = next((e for e in self._model_batches if e not in unreached), None)
        drop = [e for e in self._model_batches if e != keep]
        if drop:
            self.rec.drop_sample_batches(drop)
        self._top_forwards = {}
        self._model_batches = []
        self._backwards = 0

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

    # ----------------------------------------------------------- losses ---
    def _wrap_loss_fn(self, qualname, orig):
        sig = inspect.signature(orig)
        session = self

        @functools.wraps(orig)
        def loss_fn(*args, **kwargs):
            if not session.active or session._loss_depth or session.stop_pending:
                return orig(*args, **kwargs)
            eid = None
            with session._guard(qualname):
                if not session._stack and not session._fetch_depth:
                    session._boundary()
                    if not session.stop_pending and session._bw_depth == 0 and session._step_depth == 0:
                        session.rec.set_phase(session._top_level_phase(True))
                elif session._loss_in_model_forward():
                    session.rec.set_phase(P.LOSS)
                if not session.stop_pending:  # else the last step has just ended: unrecorded
                    f = sys._getframe(1)
                    eid = session.rec.begin(P.LOSS_CALL, qualname, "", session.rec.file_id(f.f_code.co_filename),
                                            f.f_lineno, 0, 0)
            session._loss_depth += 1
            try:
                out = orig(*args, **kwargs)
            except Exception:
                if eid is not None and session.active:
                    with session._guard(qualname):
                        session._note_failed_loss_call(sig, eid, args, kwargs)
                raise
            finally:
                session._loss_depth -= 1
            if eid is None or not session.active:
                return out
            with session._guard(qualname):
                session.rec.end(eid)
                session._note_loss_call(qualname, sig, eid, orig, args, kwargs, out)
            return out

        # TorchScript compiling code that calls the loss compiles the original
        # (torch.jit._script_if_tracing's mechanism), not this wrapper.
        setattr(loss_fn, "__script_if_tracing_wrapper", True)
        setattr(loss_fn, "__original_fn", orig)
        return loss_fn

    def _loss_in_model_forward(self):
        """A loss call inside the training forward's own body, with none of its submodules open (a
        Hugging Face model's `labels=` loss): the Loss phase begins there, so the step reads forward,
        loss, backward as when the script calls the loss itself. A loss inside a submodule (an
        auxiliary loss) leaves the phase alone."""
        return len(self._stack) == 1 and not self._fetch_depth and self.rec.phase() == P.FORWARD \
            and self._bw_depth == 0 and self._step_depth == 0

    def _note_loss_call(self, qualname, sig, eid, orig, args, kwargs, out):
        """Keeps a loss function's call as a candidate for the loss backward() runs on."""
        try:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
        except TypeError:
            arguments = {}
        tens = [a for a in args[:2] if isinstance(a, torch.Tensor)]
        self.rec.tensors(eid, P.INPUT, tuple(tens))
        self.rec.tensors(eid, P.OUTPUT, out)
        info = {"call": qualname, "event": eid, "arguments": arguments, "fn": qualname.rsplit(".", 1)[1],
                "orig": orig}
        self._add_loss_candidate(out, info)

    def _note_failed_loss_call(self, sig, eid, args, kwargs):
        """A loss function that raised (CPU cross_entropy on targets outside the
        class range): its input and target as the call's inputs, detail
        ("raised", "1") and its ignore_index, so diagnose can judge what it was
        handed; the event ends here, the exception goes on to the script."""
        try:
            arguments = sig.bind(*args, **kwargs).arguments
        except TypeError:
            arguments = {}
        inp, target = arguments.get("input"), arguments.get("target")
        if isinstance(inp, torch.Tensor) and isinstance(target, torch.Tensor):
            self.rec.tensors(eid, P.INPUT, (inp, target))
        detail = [("raised", "1")]
        if isinstance(arguments.get("ignore_index"), int):
            detail.append(("ignore_index", str(arguments["ignore_index"])))
        self.rec.add_detail(eid, detail)
        self.rec.end(eid)

    def _add_loss_candidate(self, out, info):
        if not isinstance(out, torch.Tensor) or out.grad_fn is None:
            return  # no backward can run on it (an evaluation's loss)
        self._loss_candidates.append((out, info))
        if len(self._loss_candidates) > _MAX_LOSS_CANDIDATES:
            del self._loss_candidates[0]

    # --------------------------------------------------------- backward ---
    def _wrap_backward(self, orig):
        session = self

        @functools.wraps(orig)
        def backward(tensors, *args, **kwargs):
            if not session.active or session._bw_depth:
                return orig(tensors, *args, **kwargs)
            eid = None
            with session._guard("backward"):
                session._boundary()
                if session.stop_pending:
                    session.stop()  # the next step's backward: the script ends here
                session._note_training_data()
                loss = tensors if isinstance(tensors, torch.Tensor) else None
                if loss is None and isinstance(tensors, (tuple, list)) and len(tensors) == 1:
                    loss = tensors[0]
                session._backwards += 1
                if loss is not None:
                    session._on_backward(loss)
                    if not session._optimizers_seen and session._step_depth == 0 and loss.grad_fn is not None:
                        session._backward_leaves = session._graph_leaves(loss)
                session.rec.set_phase(P.BACKWARD)
                f = sys._getframe(1)
                eid = session.rec.begin(P.BACKWARD_CALL, "backward", "", session.rec.file_id(f.f_code.co_filename),
                                        f.f_lineno, 0, 0)
                session.bus.call("on_backward_call_open", eid, loss)
            session._bw_depth += 1
            try:
                return orig(tensors, *args, **kwargs)
            finally:
                session._bw_depth -= 1
                if eid is not None and session.active:
                    with session._guard("backward"):
                        session.bus.call("on_backward_call_close", eid)
                        session.rec.end(eid)
                        if not session._optimizers_seen and session._step_depth == 0:
                            session._open_manual_step()

        return backward

    def _note_training_data(self):
        """The latest training fetch's dataset fed this step (where a stopped run ends)."""
        d = self._last_dataset
        if d is not None and not any(x is d for x in self._training_data):
            self._training_data.append(d)

    def fed_training(self, dataset):
        return any(x is dataset for x in self._training_data)

    def _on_backward(self, loss):
        cand, outer = None, ""  # the outermost call that returned `loss` (nn.CrossEntropyLoss over F.cross_entropy)
        for out, info in reversed(self._loss_candidates):
            if out is loss:
                cand = info
                break
        call_out = None
        if cand is None:  # a composite loss (cross-entropy + a regulariser, loss / 4): the latest call that fed it
            outer = grad_fn_name(loss)
            call_out, cand = next(((out, info) for out, info in reversed(self._loss_candidates)
                                   if feeds(out, loss)), (None, None))
        self._loss_depth += 1  # its own F.cross_entropy is not a loss call of the script
        try:
            rec = analyze_loss(self, loss, cand, outer, call_out)
        except Exception as e:  # analysis must never break training
            self.notice("loss_analysis_failed", "loss analysis failed: %s: %s" % (type(e).__name__, e))
            rec = None
        finally:
            self._loss_depth -= 1
        if rec is not None:
            self.rec.add_loss(rec)
        self._loss_candidates = []
        self.rec.set_grads_quiet(True)  # a capture's extra gradient pass (Grad-CAM's) records no dL/d(output)
        try:
            self.bus.call("on_backward", loss, cand)
        finally:
            self.rec.set_grads_quiet(False)

    # -------------------------------------------------------- optimizer ---
    def _wrap_optimizer_init(self, orig):
        session = self

        @functools.wraps(orig)
        def init(opt, *args, **kwargs):
            orig(opt, *args, **kwargs)
            if session.active:
                session._optimizers_seen = True
                session._optimizers.add(opt)
                session._wrap_step_of(type(opt))

        return init

    def _wrap_step_of(self, cls):
        orig = cls.step
        if getattr(orig, "_tvis_wrapped", False):
            return
        session = self

        @functools.wraps(orig)
        def step(opt, *args, **kwargs):
            if not session.active or session._step_depth:
                return orig(opt, *args, **kwargs)
            state = None
            with session._guard("optimizer.step"):
                if session.stop_pending:
                    session.stop()  # the next step's update: the script ends here
                state = session._before_step(opt, _closure_of(args, kwargs) is not None)
                args, kwargs = session._closure_as_evaluation(args, kwargs, state)
            session._step_depth += 1
            try:
                result = orig(opt, *args, **kwargs)
            finally:
                session._step_depth -= 1
            if state is not None and session.active:
                with session._guard("optimizer.step"):
                    session._after_step(opt, state)
            return result

        step._tvis_wrapped = True
        cls.step = step
        self._undo.append(lambda: setattr(cls, "step", orig))

    def _closure_as_evaluation(self, args, kwargs, state):
        """`optimizer.step(closure)` (LBFGS; Lightning's automatic
        optimization, whose closure runs training_step and the backward):
        each call of the closure is a forward, a loss and a backward inside
        the optimizer step, recorded as at the top level (phases Forward,
        Loss, Backward; the first one's batch is followed); the optimizer's
        own work between calls stays Optimizer. The gradients the step uses
        exist only once the closure has run, so the step's event opens, and
        its parameters are snapshotted, when the closure's first call returns
        (no optimizer updates a weight before that): the phases read data,
        forward, loss, backward, optimizer as without a closure, and LBFGS's
        later evaluations lie inside the step. The closure is called with no
        arguments, as optimizers do, and its result returned unchanged."""
        closure = _closure_of(args, kwargs)
        if closure is None:
            return args, kwargs
        session = self

        @functools.wraps(closure)
        def evaluation():
            depth = session._step_depth
            session._step_depth = 0
            session.rec.set_phase(P.NONE)
            try:
                return closure()
            finally:
                session._step_depth = depth
                if session.active:
                    if state is not None and state.eid is None:
                        with session._guard("optimizer.step"):
                            session._open_step(state)
                    else:
                        session.rec.set_phase(P.OPTIMIZER)

        if "closure" in kwargs:
            return args, dict(kwargs, closure=evaluation)
        return (evaluation,) + tuple(args[1:]), kwargs

    def _snapshot_params(self, eid, params):
        """Weight and gradient of each parameter, recorded natively in one call,
        which also keeps an exact copy of each weight for the update."""
        names = self._param_names()
        for k, v in self._extra_names.items():
            names.setdefault(k, v)
        pnames = [names.get(id(p), "param%d" % i) for i, p in enumerate(params)]
        self._group_names = {id(p): [n] for p, n in zip(params, pnames)}
        if self.shards.any_sharded(params, self.names.live_roots()):  # DTensor / FSDP1: this rank's parts
            parts = []
            for name, p in zip(pnames, params):
                mine = self.shards.locals([name], [p], self.names.live_roots(), self._fsdp2())
                self._group_names[id(p)] = [n for n, _, _ in mine]
                parts += mine
            pnames = [n for n, _, _ in parts]
            params = [w for _, w, _ in parts]
            if self.shards.unsplit:
                self.notice("fsdp_flat_parameters", "FullyShardedDataParallel(use_orig_params=False) on torch %s: "
                            "its FlatParameters (%s) are recorded as this rank's flat range, not split into the "
                            "model's parameters and with no placement (that needs FSDP's per-parameter shard "
                            "metadata, torch 2.1 or later)" % (torch.__version__, ", ".join(self.shards.unsplit)))
            ids = self.rec.params_before(eid, pnames, params, [g for _, _, g in parts])
        else:
            ids = self.rec.params_before(eid, pnames, params)
        return [(name, p, None, wid, gid) for name, p, (wid, gid) in zip(pnames, params, ids)]

    def _fsdp2(self):
        """Whether a root model holds an FSDP2 (fully_shard) module: its DTensors are FSDP's shards."""
        cls = getattr(sys.modules.get("torch.distributed.fsdp"), "FSDPModule", None)
        return cls is not None and any(isinstance(m, cls) for r in self.names.live_roots() for m in r.modules())

    def _before_step(self, opt, has_closure):
        """The step about to run; its event opens now or, with a closure, when
        the closure's first call returns (_open_step)."""
        f = sys._getframe(2)
        self.optimizer_class = type(opt).__name__
        state = _StepInProgress(opt, [p for g in opt.param_groups for p in g["params"]],
                                self.rec.file_id(f.f_code.co_filename), f.f_lineno)
        if not has_closure:
            self._open_step(state)
        return state

    def _open_step(self, state, snapshot=True):
        """Phase Optimizer, the step's OptimizerStep event and its parameters'
        weights and gradients before the update."""
        self.rec.set_phase(P.OPTIMIZER)
        name = type(state.opt).__name__
        state.eid = self.rec.begin(P.OPTIMIZER_STEP, name, name, state.file, state.line, 0, 0)
        self.bus.call("on_optimizer_step_open", state.eid)
        state.snap = self._snapshot_params(state.eid, state.params) if snapshot else []

    def _after_step(self, opt, state):
        if state.eid is None:  # the optimizer never called its closure: nothing was before the update
            self._open_step(state, snapshot=False)
            self.notice("closure_not_called", "%s.step(closure) returned without calling the closure: its "
                        "parameters' gradients and updates are not recorded" % type(opt).__name__)
        eid, snap = state.eid, state.snap
        self._record_update(eid, snap, self.optimizer_class, _param_groups(opt, self._group_names))
        self.optimizer_steps_taken += 1
        self._stepped.append(weakref.ref(opt))
        if self._iteration_complete():
            self._end_step()

    def skipped_step(self, opt, scale):
        """GradScaler skipped `opt`'s update (inf/NaN gradients): an
        OptimizerStep event with each parameter's weight and gradient and no
        update (grad_scaler.py); the iteration ends as after a real step."""
        with self._guard("optimizer.step"):
            if self.stop_pending:
                self.stop()
            state = self._before_step(opt, False)
            self.rec.params_unchanged()
            snap = state.snap
            self.rec.end(state.eid)
            self.rec.add_optimizer_step(R.optimizer_step(
                step=self.steps_done, event=state.eid, optimizer_class=type(opt).__name__,
                groups=_param_groups(opt, self._group_names),
                params=[(n, wid, gid, -1, wid) for n, _, _, wid, gid in snap],
                skipped=True, grad_scale=scale))
            self.rec.set_phase(P.NONE)
            self.notice("grad_scaler_skipped", "GradScaler skipped the optimizer's update in a step whose gradients "
                        "held inf or NaN: that step shows the gradients and no update")
            self._stepped.append(weakref.ref(opt))
            if self._iteration_complete():
                self._end_step()

    def _iteration_complete(self):
        """With one optimizer, each of its steps is a step. With several (a
        GAN's), a step is the iteration: it ends when every live optimizer
        the script created has stepped in it (or, when one never steps, at
        the next fetch from the loader that fed it: FetchRecorder)."""
        stepped = {id(r()) for r in self._stepped if r() is not None}
        return all(id(o) in stepped for o in list(self._optimizers))

    @staticmethod
    def _graph_leaves(loss):
        """Leaf tensors the backward of `loss` accumulates into (AccumulateGrad nodes)."""
        leaves, seen, todo, alive = [], set(), [loss.grad_fn], []
        while todo:
            fn = todo.pop()
            if fn is None or id(fn) in seen:
                continue
            alive.append(fn)  # ids stay unique only while the wrappers live
            seen.add(id(fn))
            var = getattr(fn, "variable", None)
            if var is not None:
                leaves.append(var)
            todo.extend(f for f, _ in fn.next_functions)
        return leaves

    def _leaf_names(self, leaves):
        """Names for leaves outside any module: the script's global variable holding it."""
        main = sys.modules.get("__main__")
        names = {}
        for k, v in (vars(main).items() if main else ()):
            if isinstance(v, torch.Tensor):
                names.setdefault(id(v), k)
        return {id(t): names[id(t)] for t in leaves if id(t) in names}

    def _open_manual_step(self):
        params, seen = [], set()
        for root in self.names.live_roots():
            for p in root.parameters():
                if p.requires_grad and id(p) not in seen:
                    seen.add(id(p))
                    params.append(p)
        extra = [t for t in self._backward_leaves if id(t) not in seen]
        self._extra_names = self._leaf_names(extra)
        params += extra
        self._backward_leaves = []
        f = sys._getframe(2)
        eid = self.rec.begin(P.OPTIMIZER_STEP, "update", "", self.rec.file_id(f.f_code.co_filename), f.f_lineno, 0, 0)
        self.rec.set_phase(P.OPTIMIZER)
        self._manual = (eid, self._snapshot_params(eid, params))

    def _boundary(self):
        """Closes a hand-written step (backward + the update after it)."""
        if self._manual is None:
            return
        eid, snap = self._manual
        self._manual = None
        groups = [R.param_group(hyper=[], params=[n for n, _, _, _, _ in snap])]
        self._record_update(eid, snap, "", groups)
        self._end_step()

    def _record_update(self, eid, snap, opt_class, groups):
        """The updates of one optimizer step (or hand-written update) of this step."""
        after = self.rec.params_after(eid, [p for _, p, _, _, _ in snap])
        params = [(name, wid, gid, uid, aid) for (name, _, _, wid, gid), (uid, aid) in zip(snap, after)]
        self.rec.end(eid)
        self.rec.add_optimizer_step(R.optimizer_step(step=self.steps_done, event=eid, optimizer_class=opt_class,
                                                     groups=groups, params=params,
                                                     grad_scale=self.grad_scale))
        self.rec.set_phase(P.NONE)

    def end_partial_step(self):
        """A training fetch while some optimizers stepped in this step and one
        did not: the iteration is over (an optimizer that never steps)."""
        if self._stepped:
            self._end_step()

    def _end_step(self):
        self._stepped = []
        self.bus.call("on_step_end", self.steps_done)
        self._close_forwards()
        self.rec.flush()
        self.mark("step_%d_end" % self.steps_done)
        self.steps_done += 1
        self.rec.set_step(self.steps_done)
        if self.steps_done >= self.steps_requested:
            self.stop_pending = True

    # ------------------------------------------------------- finishing ---
    def notice(self, code, message):
        if code not in self._notice_codes:
            self._notice_codes.add(code)
            self.notices.append((code, message))

    def _meta(self, complete, exit_code=0, exception="", traceback_text=""):
        return R.run_meta(
            script=self.script,
            argv=list(sys.argv),
            cwd=os.getcwd(),
            project_dir=self.project_dir,
            python_version=sys.version.split()[0],
            torch_version=torch.__version__,
            device=self._device or "cpu",
            hostname=socket.gethostname(),
            tvis_version=__import__("tvis").__version__,
            started_unix_ms=self.started_ms,
            finished_unix_ms=int(time.time() * 1000) if complete else 0,
            steps_requested=self.steps_requested,
            steps_recorded=self.steps_done,
            complete=complete,
            exit_code=exit_code,
            exception=exception,
            traceback=traceback_text,
            notices=list(self.notices),
            options=list(self.options),
            optimizer_class=self.optimizer_class,
            param_shards=self.shards.records(),
        )

    def _notice_budget(self):
        st = self.rec.stats()
        if st.get("spill_error"):
            self.notice("snapshot_spill_failed", "the file beside the run that holds a large model's weights during "
                        "the optimizer step failed (%s); later weights were held in memory%s"
                        % (st["spill_error"], "" if not st.get("spill_lost_updates") else
                           ", and %d updates kept only their element count" % st["spill_lost_updates"]))
        if st["budget_refused"]:
            limit = dict(self.options).get("max_run_bytes", "0")
            self.notice("byte_budget", "%d tensors (%.1f MB of values) kept statistics, a thumbnail and their followed "
                        "samples' rows only, to keep the run within --max-run-bytes %s; raise it to keep more"
                        % (st["budget_refused"], st["budget_refused_bytes"] / 1e6, limit))

    def _note_process_group(self):
        """A distributed rank: the process group's backend, in the options
        (rank, world_size, local_rank and launcher came from `tvis run`)."""
        dist = sys.modules.get("torch.distributed")
        try:
            if dist is not None and dist.is_available() and dist.is_initialized():
                self.options.append(("backend", str(dist.get_backend())))
        except Exception:  # noqa: BLE001: a process group torn down mid-call says nothing
            pass

    def _steps_unit(self):
        """What a step was in this run, for the notices (docs/cli.md: how steps are counted)."""
        if not self._optimizers_seen:
            return "steps (backward passes)"
        n = len(self._optimizers)
        return "optimizer steps" if n <= 1 else "steps (iterations of %d optimizers)" % n

    def finalize(self, exit_code=0, exception="", traceback_text=""):
        """Writes what was recorded and closes the run. Idempotent."""
        if self.finalized or not self.active:
            return None
        self.finalized = True
        self.mark("finalize_begin")
        self.rec.stop_profile()
        if self._manual is not None and exception == "":
            self._boundary()
        if self._stepped and exception == "":
            self._end_step()  # the script ended inside an iteration of several optimizers
        if self._kwargs_only:
            self.notice("kwargs_only_calls", "%d module calls without positional arguments went through a "
                        "custom __call__; their keyword inputs are not recorded" % self._kwargs_only)
        if self.bus is not None:
            self.bus.call("finalize")
        if self.steps_done >= self.steps_requested:
            self.notice("stopped", "stopped after %d %s as requested" % (self.steps_done, self._steps_unit()))
        elif not exception:
            self.notice("script_ended", "the script ended after %d of %d requested steps"
                        % (self.steps_done, self.steps_requested))
        self._notice_budget()
        self._note_process_group()
        self.mark("extensions_finalized")
        stats = self.rec.finalize(self._meta(True, exit_code, exception, traceback_text))
        self.mark("run_file_closed")
        self.active = False
        if self.stats_file:
            import json
            import resource
            stats = dict(stats, maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                         timeline=self.timeline, captures=self.bus.counters() if self.bus is not None else {})
            with open(self.stats_file, "w") as f:
                json.dump(stats, f)
        for undo in reversed(self._undo):
            try:
                undo()
            except Exception:
                pass
        return stats

    def hand_over(self):
        """This process only launches the ranks (child_ranks.py): its recording
        stops and its run file is removed, for rank 0's process to record
        into. Later finalize calls do nothing."""
        if self.finalized:
            return
        self.finalized = True
        self.active = False
        self.rec.stop_profile()
        self.rec.set_paused(True)
        for undo in reversed(self._undo):
            try:
                undo()
            except Exception:
                pass
        try:
            os.unlink(self.run_file)
        except OSError:
            pass

    def stop(self):
        """The N-th step has ended and the script reached step N+1: end here."""
        self.finalize()
        try:
            if getattr(self, "child_ranks", None) is not None:  # ranks it started end first (child_ranks.py)
                self.child_ranks.wait_children()
            _end_daemonic_children()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(0)


def _param_groups(opt, names):
    """The optimizer's param groups as records: hyperparameters and parameter names
    (`names`: id(parameter) -> its recorded names, several for an FSDP1 FlatParameter)."""
    return [R.param_group(hyper=[(k, repr(v)) for k, v in g.items() if k != "params"],
                          params=[n for p in g["params"] for n in names.get(id(p), ["?"])]) for g in opt.param_groups]


def _closure_of(args, kwargs):
    """The closure an optimizer.step call was given, or None."""
    closure = kwargs.get("closure") if "closure" in kwargs else (args[0] if args else None)
    return closure if callable(closure) else None


class _StepInProgress:
    """An optimizer step between its wrapper's entry and exit: the optimizer,
    the parameters it updates, where step() was called, and once opened its
    event and snapshot (None until then)."""
    __slots__ = ("opt", "params", "file", "line", "eid", "snap")

    def __init__(self, opt, params, file, line):
        self.opt, self.params, self.file, self.line = opt, params, file, line
        self.eid = self.snap = None


def _end_daemonic_children():
    """What Python's exit does for daemonic multiprocessing children (DataLoader
    worker processes), which os._exit skips: terminate and reap them, so none
    outlives the script holding its stdout open until its own watchdog fires."""
    mp = sys.modules.get("multiprocessing")
    if mp is None:
        return
    children = [p for p in mp.active_children() if p.daemon]
    for p in children:
        p.terminate()
    for p in children:
        p.join(timeout=5)
