"""Grad-CAM capture: per followed sample and conv layer, for the predicted class (and the true class).

A conv layer here is a module call that returns a 4-D floating tensor
[B, C, H, W] with an autograd graph, during the forward (not inside a data
fetch, a backward or an optimizer step). A module called several times before
one backward gets one entry per call that the class scores depend on, in
call order: ``path``, ``path#2``, ``path#3``, ...

At the user's backward (``on_backward``, graph intact) the class scores are
the [B, classes] input of the cross_entropy / nll_loss call behind the loss.
For each followed sample row i and target class c tvis differentiates
scores[i, c] alone: ``autograd.grad(scores, activations,
grad_outputs=onehot(i, c), retain_graph=True)`` on the user's graph
(maps.class_gradients; a model whose operations never mix the batch's
rows, shown by a first pass whose gradient reaches no other row, gets one
pass for all followed samples instead). The classes: the predicted one (argmax of
row i), which is also the true one when the model is right (its class-index
target; that map is listed for both); the true class of a misclassified
sample only with ``--gradcam-true``, so by default a step costs one pass per
followed sample (a pass is about a third of the step's own backward on
ResNet-18, CPU; tools/bench/recorder/gradcam_passes.py). On CUDA several
pairs share a pass through vmap (``is_grads_batched``, each slice its own
one-hot) within a memory bound; on CPU a batched pass measured no faster
than the loop and holds every pair's gradients at once, so one pass per
pair there, as where autograd refuses batching. No forward, no RNG; the exact
derivative of sample i's score alone (BatchNorm coupling included, other
samples' scores excluded). During those passes tvis's own gradient hooks are
paused and the user's hooks are silenced and ``.grad`` of ``retain_grad()``
tensors restored (guard.HookGuard). Leaf ``.grad`` is never written.

Maps: ReLU(sum_c mean_hw(dS/dA_c) A_c), float32 [h, w], stored with
``rec.tensor(map, GRAD_CAM, module event, name)`` and listed per backward as
``records.gradcam(step, module, sample, target, class_index, map)`` insights
(target 0 predicted, 1 true; equal classes share one map tensor).
Misclassified samples without a true-class map are named in notice
``gradcam_predicted_only`` (once per run).

Skipped, each with a notice naming why (once per run): ``--no-gradcam``; a
loss that is not classification over [B, classes]; a reentrant
``torch.utils.checkpoint`` in the graph; saved-tensor hooks active in the
forward (non-reentrant checkpoint, ``save_on_cpu``); outputs modified in
place after their module returned (their own gradient is not reachable as a
tensor any more); no conv layer at all; a pass that autograd refuses
(that step only). A custom ``autograd.Function`` whose
backward the passes run is named in a notice (its backward runs once more per
pass; pure ones are harmless; attributes it sets or deletes on its ``ctx``
and the global random streams it draws from are put back after the passes,
guard.HookGuard.function_state_kept).

Memory: references to this forward's activations are held from the module's
return to the backward (no later), at most for the latest ``_MAX_FORWARDS``
top-level model calls before one backward, and all dropped at step end.
"""

import torch
from torch.utils.checkpoint import CheckpointFunction

from ... import records as R
from ... import schema as P
from .guard import HookGuard
from .maps import cam, class_gradients, class_scores, executed_nodes, mixes_batch, python_functions

_MAX_FORWARDS = 4
PREDICTED, TRUE = 0, 1


def attach(ctx):
    if ctx.flag("no_gradcam"):
        ctx.notice("gradcam_off", "Grad-CAM skipped by request (--no-gradcam)")
        return None
    if ctx.samples <= 0:
        ctx.notice("gradcam_off", "Grad-CAM skipped: --samples 0 follows no sample")
        return None
    return GradCam(ctx, true_class=ctx.flag("gradcam_true"))


class _Activation:
    __slots__ = ("modules", "event", "tensor", "version")

    def __init__(self, module_key, path, event, tensor):
        self.modules = [(module_key, path)]  # several when a container returns its child's output
        self.event = event
        self.tensor = tensor
        self.version = tensor._version


class GradCam:
    def __init__(self, ctx, true_class=False):
        self.s = ctx  # CaptureContext
        self._open_calls = ctx.open_calls  # the session's live list of open calls
        self.true_class = true_class  # --gradcam-true: also the true class of misclassified samples
        self.guard = HookGuard()
        self._forwards = []   # [[_Activation]] per top-level model call since the last backward
        self._busy = False    # inside tvis's own gradient pass
        self._batched = True  # several (sample, class) pairs per pass until autograd refuses one
        self._merge = True    # one pass for all followed samples until a pass shows the rows mix
        self._verified = False  # the first merged backward is checked against one sample's own pass
        self.passes = 0       # gradient passes run (counters(): the statistics file)
        self.merged = 0       # backwards whose maps came from merged passes
        self.maps_written = 0

    def counters(self):
        return {"passes": self.passes, "merged_backwards": self.merged, "maps": self.maps_written}

    # ------------------------------------------------------------ hooks ---
    def install(self):
        self.guard.install()

    def finalize(self):
        self.guard.uninstall()
        self._drop()
        if self.maps_written == 0 and not self.s.has_notice("gradcam"):
            self.s.notice("gradcam_none", "no Grad-CAM maps: no module returned a [B, C, H, W] activation "
                                          "that a classification loss's scores depend on")

    def on_module_post(self, module, eid, args, output):
        if self._busy:
            return
        s = self.s
        if not isinstance(output, torch.Tensor) or output.dim() != 4 or not output.is_floating_point() \
                or output.grad_fn is None:
            if not self._open_calls and s.in_forward_phase():
                self._close_forward()
            return
        if not s.in_forward_phase():
            return
        if not self._forwards or self._forwards[-1] is None:
            self._open_forward()
        key, path = id(module), s.module_name(module)
        acts = self._forwards[-1]
        if acts and acts[-1].tensor is output and acts[-1].version == output._version:
            acts[-1].modules.append((key, path))  # a container returning its last child's output
        else:
            acts.append(_Activation(key, path, eid, output))
        if not self._open_calls:
            self._close_forward()

    def on_backward(self, loss, loss_info):
        try:
            if not self._busy:
                self._capture(loss_info)
        finally:
            self._drop()

    def on_step_end(self, step):
        self._drop()

    # ------------------------------------------------------ forward log ---
    def _open_forward(self):
        if self._forwards and self._forwards[-1] is None:
            self._forwards.pop()
        self._forwards.append([])
        if len(self._forwards) > _MAX_FORWARDS:
            self._forwards.pop(0)
            self.s.notice("gradcam_forwards", "Grad-CAM keeps the activations of the latest %d model calls "
                                              "before a backward; earlier calls have no maps" % _MAX_FORWARDS)

    def _close_forward(self):
        if self._forwards and self._forwards[-1]:
            self._forwards.append(None)  # the next activation opens a new top-level call

    def _drop(self):
        self._forwards = []
        self.guard.mark()

    # ---------------------------------------------------------- capture ---
    def _capture(self, loss_info):
        acts = [a for f in self._forwards if f for a in f]
        if not acts:
            return
        scores, target, why = class_scores(loss_info)
        if why is not None:
            self.s.notice("gradcam_no_scores", "Grad-CAM skipped: %s" % why)
            return
        if self.guard.saved_hooks_entered:
            self.s.notice("gradcam_saved_hooks", "Grad-CAM skipped on steps whose forward ran saved-tensor hooks "
                                                 "(non-reentrant torch.utils.checkpoint, save_on_cpu, ...): an "
                                                 "extra gradient pass would run their unpack hooks")
            return
        usable = self._usable(acts, scores.shape[0])
        if not usable:
            return
        nodes = executed_nodes(scores.grad_fn, [a.tensor.grad_fn for a in usable])
        custom = python_functions(nodes)
        if CheckpointFunction in custom:
            self.s.notice("gradcam_checkpoint", "Grad-CAM skipped on steps with reentrant torch.utils.checkpoint "
                                                "(CheckpointFunctionBackward in the graph): it refuses "
                                                "torch.autograd.grad")
            return
        if custom:
            names = ", ".join(c.__module__ + "." + c.__qualname__ for c in custom)
            self.s.notice("gradcam_custom_function", "Grad-CAM's extra gradient passes also run the backward of "
                                                     "custom autograd.Function %s; if that backward has side "
                                                     "effects, record with --no-gradcam" % names)
        if target is None:
            self.s.notice("gradcam_no_true_class", "Grad-CAM has predicted-class maps only: the loss's target is "
                                                   "not one class index per sample")
        rows = self._rows(scores.shape[0])
        merge = self._merge and not mixes_batch(nodes)
        with self.guard.function_state_kept(nodes if custom else ()) as restore:
            maps = self._maps(scores, target, rows, usable, restore if custom else None, merge)
        self._write(usable, maps)

    def _usable(self, acts, batch):
        usable, modified, by_tensor = [], [], {}
        for a in acts:
            if a.tensor.shape[0] != batch:
                continue
            if a.tensor._version != a.version:
                modified += [path for _, path in a.modules]
                continue
            first = by_tensor.get(id(a.tensor))
            if first is not None:  # the same tensor again (nn.Identity, a second container)
                first.modules += a.modules
                continue
            by_tensor[id(a.tensor)] = a
            usable.append(a)
        if modified:
            self.s.notice("gradcam_inplace", "no Grad-CAM for module outputs modified in place after the module "
                                             "returned (e.g. %s): their own gradient is no longer a tensor tvis "
                                             "can differentiate by" % ", ".join(modified[:3]))
        return usable

    def _rows(self, batch):
        """[(sample id, batch row)]: the followed samples, else the first --samples rows."""
        rows = [(sample, row) for sample, row, _ in self.s.followed_rows(batch)]
        return rows or [(i, i) for i in range(min(self.s.samples, batch))]

    def _pairs(self, scores, target, rows):
        """[(row, class)] to differentiate and, beside each, (sample, [(target kind, class)])."""
        with torch.no_grad():
            pred = scores.detach()[[r for _, r in rows]].argmax(1).tolist()
            true = target.detach()[[r for _, r in rows]].tolist() if target is not None else [None] * len(rows)
        pairs, meta, wrong = [], [], []
        for (sample, row), p, t in zip(rows, pred, true):
            kinds = {p: [PREDICTED]}
            if t is not None and 0 <= t < scores.shape[1]:
                if t == p or self.true_class:
                    kinds.setdefault(t, []).append(TRUE)
                else:
                    wrong.append(sample)
            for cls, ks in kinds.items():
                pairs.append((row, cls))
                meta.append((sample, [(k, cls) for k in ks]))
        if wrong:
            self.s.notice("gradcam_predicted_only",
                          "Grad-CAM maps are of the predicted class; followed samples the model got wrong (e.g. "
                          "sample %s) have no true-class map: record with --gradcam-true for those (one more "
                          "gradient pass each)" % ", ".join(str(w) for w in wrong[:3]))
        return pairs, meta

    def _maps(self, scores, target, rows, acts, after_pass=None, merge=False):
        """[(sample, [(target kind, class)], activation, map)]: the passes, tvis's hooks paused, the user's silenced."""
        pairs, meta = self._pairs(scores, target, rows)
        out = []
        counts = {}

        def consume(k, grads):
            row, (sample, targets) = pairs[k][0], meta[k]
            out.extend((sample, targets, a, cam(a.tensor[row], g[row])) for a, g in zip(acts, grads) if g is not None)

        rec = self.s.rec
        was_paused = rec.paused()
        self._busy = True
        rec.set_paused(True)
        try:
            with self.guard.quiet():
                refused = class_gradients(scores, pairs, [a.tensor for a in acts], consume,
                                          self._batched and scores.is_cuda, after_pass, merge, counts,
                                          verify=not self._verified)
            self.passes += counts["passes"]
            self.merged += counts["merged"]
            self._verified = self._verified or counts["merged"]
            if counts["mixing"]:
                self._merge = False  # this model mixes the rows: one pass per sample from now on
            if refused is not None:
                self._batched = False
                self.s.notice("gradcam_unbatched", "Grad-CAM runs one gradient pass per sample and class: autograd "
                                                   "refused a batched pass (%s)" % refused)
        except RuntimeError as e:  # autograd refused the pass (a custom backward, a freed graph): this step only
            self.s.notice("gradcam_pass_failed", "Grad-CAM skipped on a step where torch.autograd.grad failed: %s"
                          % str(e).splitlines()[0])
            out = []
        finally:
            rec.set_paused(was_paused)
            self._busy = False
        return out

    @staticmethod
    def _names(acts, maps):
        """Layer names of the activations that have maps, in forward order: the
        module path, ``path#k`` for its k-th call (k > 1) among them."""
        have = {id(a) for _, _, a, _ in maps}
        calls, names = {}, {}
        for a in acts:
            if id(a) not in have:
                continue
            names[id(a)] = []
            for key, path in a.modules:
                calls[key] = k = calls.get(key, 0) + 1
                names[id(a)].append(path + ("#%d" % k if k > 1 else ""))
        return names

    def _write(self, acts, maps):
        rec, step, records = self.s.rec, self.s.step, []
        names = self._names(acts, maps)
        for sample, targets, a, m in maps:
            label = "/".join("%s %d" % ("predicted" if k == PREDICTED else "true", c) for k, c in targets)
            tid = rec.tensor(m, P.GRAD_CAM, a.event, "gradcam sample %d (%s)" % (sample, label))
            for name in names[id(a)]:
                for k, c in targets:
                    records.append(R.gradcam(step=step, module=name, sample=sample, target=k,
                                             class_index=int(c), map=tid))
        if records:
            self.s.add_insights(R.insights(gradcam=records))
            self.maps_written += len(maps)
