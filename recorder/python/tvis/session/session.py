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
import os
import sys
import threading
import time
import weakref

import torch
import torch.nn.functional as F

from .. import records as R
from .. import schema as P
from ..subscribers import SUBSCRIBERS
from .backward_calls import BackwardCalls
from .call_sites import call_kwargs, call_site
from .context import CaptureContext
from .fetch import FetchRecorder
from .hand_written_steps import HandWrittenSteps
from .hook_bus import HookBus
from .loss_calls import LossCalls, LOSS_FUNCTIONS
from .module_calls import ModuleCalls
from .names import ModuleNames, is_compiled
from .optimizer_steps import OptimizerSteps
from .project_code import ProjectFiles
from .run_meta import RunMetaNotes
from .shards import Shards, dtensors_possible, local_values
from .top_forwards import TopForwards

# Read at every module call: bound once.
_LOSS = torch.nn.modules.loss._Loss
_MODULE_CALL = P.MODULE_CALL
_INPUT = P.INPUT


class Session(ModuleCalls, TopForwards, LossCalls, BackwardCalls, OptimizerSteps, HandWrittenSteps, RunMetaNotes):
    """The recording session (see the module doc). Its parts, one concept a
    file, are mixins over this object's fields (each file says which it
    reads and writes); this class keeps the lifecycle: the fields, install,
    the module hooks, the step's end and the run's end."""

    def __init__(self, native, run_file, config, script, options=()):
        """`config`: the run's RunConfig as a dict (schema/recording.fbs; a key left
        out is the schema's default), taken whole and handed whole to the native
        Recorder, which stores it in every RunMeta. `options`: the other run
        options as (key, value) strings (rank, world_size, local_rank, launcher)."""
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the tvis package: not project code
        config = dict(P.DEFAULTS["RunConfig"], **config)
        config["project_dir"] = config["project_dir"] or os.path.dirname(os.path.abspath(script))
        # Developer knobs (docs/cli.md, "Environment variables"), never needed by a user:
        # TVIS_ZSTD_LEVEL: the writer's zstd level (default 1; benchmarks compare others).
        level = int(os.environ.pop("TVIS_ZSTD_LEVEL", "1") or 1)
        # TVIS_ZSTD_DENSE_LEVEL: the level of float32 weights and activations (run_builder.h).
        dense = os.environ.pop("TVIS_ZSTD_DENSE_LEVEL", "")
        # TVIS_UPDATE_VALUES=1: Δw records keep their values too (tests compare them with after - before).
        update_values = os.environ.pop("TVIS_UPDATE_VALUES", "") == "1"
        # TVIS_SNAPSHOT_SPILL_BYTES: parameters of at least this many bytes keep their weights before
        # the optimizer step in a file beside the run, not in memory (recorder.h; tests force 0)
        spill = os.environ.pop("TVIS_SNAPSHOT_SPILL_BYTES", "")
        self.rec = native.Recorder(run_file, config, exclude_dirs=[here], zstd_level=level,
                                   dense_zstd_level=int(dense) if dense else None, update_values=update_values,
                                   spill_snapshot_bytes=int(spill) if spill else 256 << 20)
        self.config = config
        self.run_file = run_file
        self.steps_requested = config["steps"]
        self.samples = config["samples"]
        project_dir = self.project_dir = config["project_dir"]
        self.project_files = ProjectFiles(project_dir)
        self.script = script
        self.options = list(options)
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
        self._stack = []            # [(module, event id)] open module calls; never rebound (captures keep it)
        self._frames = []           # the call frame of each entry of _stack
        self._local_views = True    # whether a DTensor may be among a call's values (dtensors_possible), per top-level call
        self._thread = threading.get_ident()
        self.names = ModuleNames()  # module and parameter paths (names.py)
        self.shards = Shards()      # sharded parameters' local parts and placements (shards.py)
        self._group_names = {}      # id(parameter) -> [recorded names] of the last snapshot (FSDP1 flat: several)
        self._class_defs = {}       # class -> (file id, line)
        self._identities = {}       # id(module) -> (weak ref, path, class name, def file, def line): _call_identity
        self._params_memo = None    # {id: (path, parameter)} while an optimizer step opens (_named_params)
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
        for name in LOSS_FUNCTIONS:
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
        top_forward = False
        if self._stack:
            self._drop_raised_calls(call)  # may leave the stack empty: then this call is a top-level one
        if self._stack:
            if isinstance(module, _LOSS) and self._loss_in_model_forward():
                self.rec.set_phase(P.LOSS)  # nn.CrossEntropyLoss in the model's own forward body (BERT's labels=)
        else:
            self._local_views = dtensors_possible()
            if not self._fetch_depth:
                top_forward = self._top_level_call(module, args, call)
                if top_forward is None:
                    return None  # the last step has ended: the script runs on unrecorded
        site = call_site(call)
        filename = site.f_code.co_filename
        cf = self._code_files.get(filename)
        if cf is None:  # the file id of each calling file, asked once
            cf = self._code_files[filename] = self.rec.file_id(filename)
        ident = self._identities.get(id(module))  # _module_name's lookup, inlined: this runs at every call
        if ident is None or ident[0]() is not module:
            ident = self._call_identity(module, sys._getframe(0))
        eid = self.rec.begin(_MODULE_CALL, ident[1], ident[2], cf, site.f_lineno, ident[3], ident[4])
        kwargs = call_kwargs(call)
        whole = not self._stack  # the top-level call's inputs are the batch: every row (recorder.h)
        if kwargs:
            # keyword inputs (global pre-hooks get none): slots after the positional ones
            self.rec.tensors(eid, P.INPUT, (args, kwargs), whole)
            keywords = " ".join(k for k, v in kwargs.items() if isinstance(v, torch.Tensor))
            if keywords:  # not for options only (need_weights=False)
                self.rec.add_detail(eid, R.event_detail(keyword_inputs=keywords))
        elif args:
            self.rec.tensors(eid, _INPUT, args, whole)
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
        if self._local_views:
            self.bus.call("on_module_pre", module, eid, local_values(args), local_values(kwargs or {}))
        else:
            self.bus.call("on_module_pre", module, eid, args, kwargs or {})
        return None

    def _top_level_call(self, module, args, call):
        """A call with no call open, outside a data fetch: the step boundary,
        the phase it begins, and at a training forward the run facts it
        reveals. True for a training forward, False otherwise, None when the
        last step has ended (nothing is recorded)."""
        self._boundary()
        if self.stop_pending:
            return None
        top_forward = False
        if self._bw_depth == 0 and self._step_depth == 0:
            self.rec.set_phase(self._top_level_phase(isinstance(module, _LOSS)))
            if self._device is None:
                self._note_device(module)
            top_forward = self.rec.phase() == P.FORWARD
            if top_forward:
                if is_compiled(module):
                    self._note_compiled(module)
                if not self.names.decided:
                    self.names.decide(module, call)
                    self._identities.clear()  # the paths may now be qualified
                self._budget_parameters(module)
            for a in args:
                if isinstance(a, torch.Tensor) and a.dim() > 0 and not isinstance(module, _LOSS):
                    if self.rec.phase() == P.FORWARD:
                        self.rec.set_batch_rows(a.shape[0])
                    break
        return top_forward

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
        if self._local_views:
            self.bus.call("on_module_post", module, eid, local_values(args), local_values(output))
        else:
            self.bus.call("on_module_post", module, eid, args, output)
        self.rec.end(eid)
        if isinstance(module, _LOSS) and isinstance(output, torch.Tensor):
            info = {"call": "torch.nn." + type(module).__name__, "event": eid, "args": args,
                    "kwargs": {k: getattr(module, k) for k in ("reduction", "ignore_index", "label_smoothing",
                                                               "weight") if hasattr(module, k)},
                    "fn": type(module).__name__}
            self._add_loss_candidate(output, info)
        return None

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
