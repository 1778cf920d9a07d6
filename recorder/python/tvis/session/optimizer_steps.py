"""Optimizer steps: ``torch.optim`` optimizers' ``step()`` wrapped, each
step's OptimizerStep event, its parameters' snapshot before the update and
their updates after it (OptimizerStepRecord), and when the step (one
optimizer's step, or the iteration of several) ends.

``OptimizerSteps`` is a part of Session (a mixin over the Session's fields):
``_optimizers`` (the live optimizers the script created), ``_stepped``
(those that stepped in this step), ``_step_depth`` (inside a step: nested
steps and the closure's own work are not steps), ``optimizer_class``,
``optimizer_steps_taken``, ``grad_scale`` (grad_scaler.py) and
``_group_names``. The wrapper calls the original with the same arguments
(a closure is wrapped to record its calls as forward, loss and backward
inside the step; it is called with no arguments, as optimizers do, and its
result returned unchanged) and returns its result. The bus's
``on_optimizer_step_open(eid)`` is dispatched when a step's event opens,
before its parameters are snapshotted.
"""

import functools
import sys
import weakref

import torch

from .. import records as R
from .. import schema as P


class OptimizerSteps:
    """A part of Session: optimizer steps, their snapshots and updates (see the module doc)."""

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
        self._params_memo = self.names.named_params()  # one walk of the models for the probes and the snapshot
        try:
            self.bus.call("on_optimizer_step_open", state.eid)
            state.snap = self._snapshot_params(state.eid, state.params) if snapshot else []
        finally:
            self._params_memo = None

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
