"""The recording session: hooks installed into the user's interpreter.

Contract (FIDELITY): nothing here draws random numbers, sets a torch flag or
writes a tensor of the user's program. Hooks read tensors and hand them to the
native recorder, which copies what it keeps. Patched callables (optimizer
``step``, ``Tensor.backward``, ``torch.autograd.backward``, DataLoader
``__next__``, ``torch.nn.functional`` losses) call the original with the same
arguments and return its result unchanged.

Steps: with ``torch.optim``, a step ends when the outermost ``optimizer.step()``
returns. Without it, a step is one ``backward()`` plus the code after it until
the next top-level module call or data fetch (a hand-written update belongs to
it). After the N-th step the script is stopped at its first data fetch or
module call: the run is finalized, stdout/stderr flushed, ``os._exit(0)``.

Captures (``tvis.captures``: data pipeline, Grad-CAM, attention, embeddings)
ride on these hooks through ``tvis.captures.Extensions``; see there for the
calls they get. They see the session only through ``CaptureContext``
(``context.py``). ``followed`` holds this step's followed samples.
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
from ..captures import Extensions
from .context import CaptureContext
from .fetch import FetchRecorder
from .loss import analyze_loss
from .project_code import ProjectFiles

_LOSS_FUNCTIONS = (
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
)


_CALL_IMPL = torch.nn.Module._call_impl.__code__

# Loss calls kept as candidates for the loss the next backward() runs on: the
# latest ones only (each holds its output's graph; an evaluation loop with
# grad enabled and no backward would otherwise keep every batch's graph).
_MAX_LOSS_CANDIDATES = 8


def _call_kwargs(frame):
    """The keyword arguments of the module call whose pre-hook runs, read from
    `frame` when it is Module._call_impl's (1.13 hands hooks no kwargs); None
    when it is not (a custom __call__)."""
    return frame.f_locals.get("kwargs") if frame.f_code is _CALL_IMPL else None


class Session:
    def __init__(self, native, run_file, steps, max_elems, samples, project_dir, script, options):
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the tvis package: not project code
        # TVIS_ZSTD_LEVEL: the writer's zstd level (default 1; benchmarks compare others).
        level = int(os.environ.pop("TVIS_ZSTD_LEVEL", "1") or 1)
        # TVIS_ZSTD_DENSE_LEVEL: the level of float32 weights and activations (run_builder.h).
        dense = os.environ.pop("TVIS_ZSTD_DENSE_LEVEL", "")
        self.rec = native.Recorder(run_file, max_elems, samples, project_dir, [here], level,
                                   dense_zstd_level=int(dense) if dense else None)
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
        self._stack = []            # [(module, event id)] open module calls
        self._frames = []           # the call frame of each entry of _stack
        self._thread = threading.get_ident()
        self._names = {}            # id(module) -> (weak reference to it, module path)
        self._roots = []            # root modules (weak references)
        self._class_defs = {}       # class -> (file id, line)
        self._loss_candidates = []  # [(output tensor, info dict)] of this step
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
        self.ext = None             # Extensions, set at install()
        self.fetch = None           # FetchRecorder (fetch.py), set at install()
        # Benchmarks: where to write the writer's statistics at finalize (JSON).
        self.stats_file = os.environ.pop("TVIS_STATS_FILE", None)
        # [(what, unix time)] of setup, steps and finalize; in the statistics file.
        self.timeline = []

    def mark(self, what):
        self.timeline.append((what, time.time()))

    # ------------------------------------------------------------ install --
    def install(self):
        self.ext = Extensions.attach_all(CaptureContext(self))
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
        self.ext.call("install")
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
        """A failure inside tvis never reaches the script: the run is finalized
        with what it has and a notice, and the script continues unrecorded."""
        try:
            yield
        except Exception as e:  # noqa: BLE001 (anything of ours)
            if not self.active:
                return
            msg = "recording stopped after an internal error in %s: %s: %s" % (where, type(e).__name__, e)
            self.notice("recorder_error", msg)
            sys.stderr.write("tvis: %s; the script continues unrecorded\n" % msg)
            try:
                self.finalize(exception="tvis internal error: %s: %s" % (type(e).__name__, e))
            except Exception:
                self.active = False

    # -------------------------------------------------------------- names --
    def _module_name(self, module):
        # entries hold a weak reference: an id of a freed module may be reused by another
        entry = self._names.get(id(module))
        if entry is not None and entry[0]() is module:
            return entry[1]
        root = self._stack[0][0] if self._stack else module
        if not any(r() is root for r in self._roots):
            self._roots.append(weakref.ref(root))
        for sub_name, sub in root.named_modules():
            self._name(sub, sub_name or type(root).__name__)
        return self._name(module, type(module).__name__)

    def _name(self, module, name):
        """The name of `module` when it has a live entry, else `name`, now its entry."""
        entry = self._names.get(id(module))
        if entry is None or entry[0]() is not module:
            entry = self._names[id(module)] = (weakref.ref(module), name)
        return entry[1]

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
        names = {}
        for r in self._roots:
            root = r()
            if root is None:
                continue
            for n, p in root.named_parameters():
                names.setdefault(id(p), n)
        return names

    # -------------------------------------------------------- module hooks --
    # Module calls inside a DataLoader fetch are its pipeline (transforms are
    # modules too): the pipeline capture records the followed samples' ones.
    def _pre(self, module, args):
        if self.active and not self._fetch_depth:
            with self._guard("a module pre-hook"):
                self._pre_impl(module, args)

    def _post(self, module, args, output):
        if self.active and not self._fetch_depth:
            with self._guard("a module hook"):
                self._post_impl(module, args, output)

    def _pre_impl(self, module, args):
        call = sys._getframe(2)  # Module._call_impl, or a custom __call__
        if self._stack:
            self._drop_raised_calls(call)
        top_forward = False
        if not self._stack and not self._fetch_depth:
            self._boundary()
            if self.stop_pending:
                self.stop()
            if self._bw_depth == 0 and self._step_depth == 0:
                self.rec.set_phase(P.LOSS if isinstance(module, torch.nn.modules.loss._Loss) else P.FORWARD)
                if self._device is None:
                    self._note_device(module)
                top_forward = self.rec.phase() == P.FORWARD
                for a in args:
                    if isinstance(a, torch.Tensor) and a.dim() > 0 and not isinstance(module, torch.nn.modules.loss._Loss):
                        if self.rec.phase() == P.FORWARD:
                            self.rec.set_batch_rows(a.shape[0])
                        break
        site = call.f_back if call.f_code is _CALL_IMPL and call.f_back is not None else call
        cf = self.rec.file_id(site.f_code.co_filename)
        df, dl = self._class_def(type(module))
        eid = self.rec.begin(P.MODULE_CALL, self._module_name(module), type(module).__name__, cf, site.f_lineno,
                             df, dl)
        kwargs = _call_kwargs(call)
        if kwargs:
            # keyword inputs (1.13 pre-hooks get none): slots after the positional ones
            self.rec.tensors(eid, P.INPUT, (args, kwargs))
            self.rec.add_detail(eid, [("keyword_inputs", " ".join(k for k, v in kwargs.items()
                                                                  if isinstance(v, torch.Tensor)))])
        elif args:
            self.rec.tensors(eid, P.INPUT, args)
        elif kwargs is None:
            self._kwargs_only += 1
        if top_forward and self.followed_step != self.steps_done:
            self.fetch.follow_model_input(eid, args)
        self._stack.append((module, eid))
        self._frames.append(call)
        self.ext.call("on_module_pre", module, eid, args)
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
        self.rec.tensors(eid, P.OUTPUT, output)
        out = output
        if isinstance(out, (tuple, list)) and out:
            out = out[0]
        if isinstance(out, torch.Tensor) and out.grad_fn is not None:
            out.grad_fn.register_hook(functools.partial(self.rec.on_grad, eid, out.output_nr))
        self.ext.call("on_module_post", module, eid, args, output)
        self.rec.end(eid)
        if isinstance(module, torch.nn.modules.loss._Loss) and isinstance(output, torch.Tensor):
            info = {"call": "torch.nn." + type(module).__name__, "event": eid, "args": args,
                    "kwargs": {k: getattr(module, k) for k in ("reduction", "ignore_index", "label_smoothing",
                                                               "weight") if hasattr(module, k)},
                    "fn": type(module).__name__}
            self._add_loss_candidate(output, info)
        return None

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
            if not session.active or session._loss_depth:
                return orig(*args, **kwargs)
            eid = None
            with session._guard(qualname):
                if not session._stack and not session._fetch_depth:
                    session._boundary()
                    if session.stop_pending:
                        session.stop()
                    if session._bw_depth == 0 and session._step_depth == 0:
                        session.rec.set_phase(P.LOSS)
                f = sys._getframe(1)
                eid = session.rec.begin(P.LOSS_CALL, qualname, "", session.rec.file_id(f.f_code.co_filename),
                                        f.f_lineno, 0, 0)
            session._loss_depth += 1
            try:
                out = orig(*args, **kwargs)
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

    def _add_loss_candidate(self, out, info):
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
                loss = tensors if isinstance(tensors, torch.Tensor) else None
                if loss is None and isinstance(tensors, (tuple, list)) and len(tensors) == 1:
                    loss = tensors[0]
                if loss is not None:
                    session._on_backward(loss)
                    if not session._optimizers_seen and session._step_depth == 0 and loss.grad_fn is not None:
                        session._backward_leaves = session._graph_leaves(loss)
                session.rec.set_phase(P.BACKWARD)
                f = sys._getframe(1)
                eid = session.rec.begin(P.BACKWARD_CALL, "backward", "", session.rec.file_id(f.f_code.co_filename),
                                        f.f_lineno, 0, 0)
            session._bw_depth += 1
            try:
                return orig(tensors, *args, **kwargs)
            finally:
                session._bw_depth -= 1
                if eid is not None and session.active:
                    with session._guard("backward"):
                        session.rec.end(eid)
                        if not session._optimizers_seen and session._step_depth == 0:
                            session._open_manual_step()

        return backward

    def _on_backward(self, loss):
        cand = None  # the outermost call that returned `loss` (nn.CrossEntropyLoss over F.cross_entropy)
        for out, info in reversed(self._loss_candidates):
            if out is loss:
                cand = info
                break
        if cand is None and self._loss_candidates:
            cand = self._loss_candidates[-1][1]
        self._loss_depth += 1  # its own F.cross_entropy is not a loss call of the script
        try:
            rec = analyze_loss(self, loss, cand)
        except Exception as e:  # analysis must never break training
            self.notice("loss_analysis_failed", "loss analysis failed: %s: %s" % (type(e).__name__, e))
            rec = None
        finally:
            self._loss_depth -= 1
        if rec is not None:
            self.rec.add_loss(rec)
        self._loss_candidates = []
        self.ext.call("on_backward", loss, cand)

    # -------------------------------------------------------- optimizer ---
    def _wrap_optimizer_init(self, orig):
        session = self

        @functools.wraps(orig)
        def init(opt, *args, **kwargs):
            orig(opt, *args, **kwargs)
            if session.active:
                session._optimizers_seen = True
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
                state = session._before_step(opt)
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

    def _snapshot_params(self, eid, params):
        """Weight and gradient of each parameter, recorded natively in one call,
        which also keeps an exact copy of each weight for the update."""
        names = self._param_names()
        for k, v in self._extra_names.items():
            names.setdefault(k, v)
        pnames = [names.get(id(p), "param%d" % i) for i, p in enumerate(params)]
        ids = self.rec.params_before(eid, pnames, params)
        return [(name, p, None, wid, gid) for name, p, (wid, gid) in zip(pnames, params, ids)]

    def _before_step(self, opt):
        self.rec.set_phase(P.OPTIMIZER)
        self.optimizer_class = type(opt).__name__
        f = sys._getframe(2)
        eid = self.rec.begin(P.OPTIMIZER_STEP, type(opt).__name__, type(opt).__name__,
                             self.rec.file_id(f.f_code.co_filename), f.f_lineno, 0, 0)
        params = [p for g in opt.param_groups for p in g["params"]]
        return eid, self._snapshot_params(eid, params)

    def _after_step(self, opt, state):
        eid, snap = state
        names = {id(p): n for n, p, _, _, _ in snap}
        groups = []
        for g in opt.param_groups:
            hyper = [(k, repr(v)) for k, v in g.items() if k != "params"]
            groups.append(R.param_group(hyper=hyper, params=[names.get(id(p), "?") for p in g["params"]]))
        self._finish_step(eid, snap, self.optimizer_class, groups)

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
        for r in self._roots:
            root = r()
            if root is not None:
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
        self._finish_step(eid, snap, "", groups)

    def _finish_step(self, eid, snap, opt_class, groups):
        uids = self.rec.params_after(eid, [p for _, p, _, _, _ in snap])
        params = [(name, wid, gid, uid) for (name, _, _, wid, gid), uid in zip(snap, uids)]
        self.rec.end(eid)
        self.rec.add_optimizer_step(R.optimizer_step(step=self.steps_done, event=eid, optimizer_class=opt_class,
                                                     groups=groups, params=params))
        self.rec.set_phase(P.NONE)
        self.ext.call("on_step_end", self.steps_done)
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
        )

    def finalize(self, exit_code=0, exception="", traceback_text=""):
        """Writes what was recorded and closes the run. Idempotent."""
        if self.finalized or not self.active:
            return None
        self.finalized = True
        self.mark("finalize_begin")
        self.rec.stop_profile()
        if self._manual is not None and exception == "":
            self._boundary()
        if self._kwargs_only:
            self.notice("kwargs_only_calls", "%d module calls without positional arguments went through a "
                        "custom __call__; their keyword inputs are not recorded" % self._kwargs_only)
        if self.ext is not None:
            self.ext.call("finalize")
        if self.steps_done >= self.steps_requested:
            self.notice("stopped", "stopped after %d optimizer steps as requested" % self.steps_done)
        elif not exception:
            self.notice("script_ended", "the script ended after %d of %d requested steps"
                        % (self.steps_done, self.steps_requested))
        self.mark("extensions_finalized")
        stats = self.rec.finalize(self._meta(True, exit_code, exception, traceback_text))
        self.mark("run_file_closed")
        self.active = False
        if self.stats_file:
            import json
            import resource
            stats = dict(stats, maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                         timeline=self.timeline)
            with open(self.stats_file, "w") as f:
                json.dump(stats, f)
        for undo in reversed(self._undo):
            try:
                undo()
            except Exception:
                pass
        return stats

    def stop(self):
        """The N-th step has ended and the script reached step N+1: end here."""
        self.finalize()
        try:
            _end_daemonic_children()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(0)


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
