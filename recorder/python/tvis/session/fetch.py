"""Recording DataLoader fetches: the batch as yielded and its followed samples.

``FetchRecorder(session).wrap_next(orig)`` is the patch of
``_BaseDataLoaderIter.__next__``. Each call is one DataFetch event (a step
boundary for hand-written updates, and where a stopped run ends); the batch
it returns is recorded whole (role Batch), then one SampleBatch: for each
followed sample its id, batch row, the row as batched, its label (from an
integer label vector beside the inputs; the dataset's ``classes`` name it
when present) and, when the pipeline capture observed the fetch
(``observer``, set by the pipeline capture), its dataset index and the
transforms it went through. ``session.followed`` is set to
``[{id, batch_position, label_index}]`` and extensions get ``on_fetch``.

Without an observation the followed samples are the first K rows. A step
whose forward begins with no DataLoader batch recorded for it (a script that
slices its own batches) follows the first K rows of the model's first batched
tensor input (``follow_model_input``).
A DataLoader left to real worker processes gets a notice
(``pipeline_not_observed``) unless the capture already named why.

Contract: ``orig`` is called once with the same iterator and its result (or
exception) returned unchanged; recording reads the batch only.
"""

import functools
import sys

import torch
from torch.utils.data.dataloader import _MultiProcessingDataLoaderIter

from .. import records as R
from .. import schema as P
from .followed import first_rows


def _parts(batch):
    if isinstance(batch, (tuple, list)):
        return list(batch)
    if isinstance(batch, dict):
        return list(batch.values())
    return [batch]


class FetchRecorder:
    def __init__(self, session):
        self.s = session
        self.observer = None

    def wrap_next(self, orig):
        fr = self

        @functools.wraps(orig)
        def next_(it):
            s = fr.s
            if not s.active:
                return orig(it)
            eid = None
            dataset = getattr(it, "_dataset", None)
            evaluating = not torch.is_grad_enabled()
            with s._guard("a data fetch"):
                s._boundary()
                if not evaluating and s.fed_training(dataset):
                    s.end_partial_step()
                    if s.stop_pending:
                        s.stop()  # the next step's batch: the script ends here
                if not s.stop_pending:  # else the last step has ended: this fetch runs unrecorded
                    s.rec.set_phase(P.EVALUATION if evaluating else P.DATA)
                    f = sys._getframe(1)
                    name = type(dataset).__name__ if dataset is not None else "DataLoader"
                    eid = s.rec.begin(P.DATA_FETCH, name, "DataLoader", s.rec.file_id(f.f_code.co_filename),
                                      f.f_lineno, 0, 0)
                    fr._note_real_workers(it)
                    if not evaluating:
                        s._last_dataset = dataset
            if eid is None:
                return orig(it)
            observer = fr.observer if not evaluating else None
            if observer is not None:
                observer.begin()
            s._fetch_depth += 1
            obs = None
            try:
                batch = orig(it)
            finally:
                s._fetch_depth -= 1
                if observer is not None:
                    obs = observer.end()
                if eid is not None and s.active:
                    with s._guard("a data fetch"):
                        s.rec.end(eid)
            if s.active:
                with s._guard("a data fetch"):
                    if evaluating:
                        s.rec.tensors(eid, P.BATCH, batch)  # statistics only (Evaluation)
                    else:
                        fr.on_fetch(eid, batch, obs)
            return batch

        return next_

    def _note_real_workers(self, it):
        if isinstance(it, _MultiProcessingDataLoaderIter):
            self.s.notice("pipeline_not_observed", "a DataLoader ran its %d worker processes: its batches were "
                          "recorded, its dataset and transforms were not" % it._num_workers)

    def on_fetch(self, eid, batch, obs=None):
        s = self.s
        ids = s.rec.tensors(eid, P.BATCH, batch)
        parts = _parts(batch)
        first = parts[0] if parts else None
        while isinstance(first, (tuple, list)) and first:
            first = first[0]
        if not isinstance(first, torch.Tensor) or first.dim() == 0:
            return ids
        rows = first.shape[0]
        s.rec.set_batch_rows(rows)
        labels = None
        if len(parts) >= 2 and isinstance(parts[1], torch.Tensor) and parts[1].dim() == 1 \
                and parts[1].shape[0] == rows and not parts[1].is_floating_point():
            labels = parts[1]
        plan = obs.followed if obs is not None and obs.followed is not None else first_rows(s.samples, rows)
        names = obs.label_names if obs is not None else None
        samples = []
        with torch.no_grad():
            for sid, row, dataset_index in plan:
                if row >= rows:
                    continue
                tid = s.rec.tensor(first[row], P.BATCH, eid, "sample[%d]" % sid)
                k = label = None
                if labels is not None:
                    k = int(labels[row])
                    label = names[k] if names and 0 <= k < len(names) else str(k)
                trace = obs.traces.get(sid) if obs is not None else None
                samples.append(R.sample(id=sid, batch_position=row, input=tid,
                                        dataset_index=dataset_index if dataset_index >= 0 else None,
                                        label=label, label_index=k,
                                        transforms=trace["transforms"] if trace is not None else None))
        s.rec.add_samples(R.sample_batch(step=s.steps_done, batch_event=eid, batch=ids, samples=samples))
        _set_followed(s, samples)
        s.bus.call("on_fetch", eid, batch)
        return ids

    def follow_model_input(self, eid, args):
        """A step whose forward began without a DataLoader batch: the followed
        samples are the first K rows of the model's first batched tensor input
        (module call `eid`), ids = rows, labels unknown here (the loss has them)."""
        s = self.s
        first = next((a for a in args if isinstance(a, torch.Tensor) and a.dim() > 0), None)
        if first is None:
            return
        samples = []
        with torch.no_grad():
            for sid, row, _ in first_rows(s.samples, first.shape[0]):
                samples.append(R.sample(id=sid, batch_position=row,
                                        input=s.rec.tensor(first[row], P.BATCH, eid, "sample[%d]" % sid)))
        s.rec.add_samples(R.sample_batch(step=s.steps_done, batch_event=eid, batch=[], samples=samples))
        _set_followed(s, samples)


def _set_followed(session, samples):
    session.followed = [{"id": x["id"], "batch_position": x["batch_position"], "label_index": x.get("label_index")}
                        for x in samples]
    # batch-sized activations keep the rows up to the last followed one (recorder.h)
    session.rec.set_followed_rows(max((x["batch_position"] for x in samples), default=0) + 1)
    session.followed_step = session.steps_done
