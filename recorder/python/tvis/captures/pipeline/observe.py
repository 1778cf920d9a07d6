"""Observing the followed samples of one DataLoader fetch.

``Observer`` is told when a fetch (one ``__next__``) begins and ends
(``begin``/``end``; ``end`` returns the ``FetchObservation``). Torch's
dataset fetchers are used through ``ObservedFetcher``; while a fetch is
observed, its ``fetch(index)`` plans the followed rows
(``tvis.session.followed``) and traces those items (``trace.py``):

- map-style datasets (``_MapDatasetFetcher`` with automatic batching): the
  fetcher's ``dataset`` is swapped, for that one call, for a view whose
  ``__getitem__`` counts rows and traces the planned ones;
- iterable datasets (with automatic batching): the fetcher's
  ``dataset_iter`` is swapped for a view that traces the first K items;
- anything else (no automatic batching, ``__getitems__``): fetched as is,
  nothing traced, the first rows followed.

A fetch that raises (an iterable worker running out) leaves no followed
samples behind; the last successful fetch of the ``__next__`` is the one
observed. Outside an observed ``__next__`` (a persistent worker finishing
old tasks at ``iter()``) fetchers run untouched.

Contract: the same dataset calls happen in the same order with the same
arguments; the swapped attributes are put back before ``fetch`` returns.
"""

from torch.utils.data._utils.fetch import _IterableDatasetFetcher, _MapDatasetFetcher

from ...session.followed import FollowedIndices, first_rows, index_value
from .trace import ItemTracer


class FetchObservation:
    __slots__ = ("followed", "traces", "label_names")

    def __init__(self):
        self.followed = None     # [[sample id, row, dataset index]] or None (first rows)
        self.traces = {}         # sample id -> {"event", "transforms"}
        self.label_names = None  # the dataset's `classes`, when it has them


class ObservedFetcher:
    """Stands in for a torch dataset fetcher; attributes pass through."""

    def __init__(self, inner, observer, dataset):
        self.__dict__.update(_inner=inner, _observer=observer, _dataset=dataset)

    def __getattr__(self, name):
        return getattr(self.__dict__["_inner"], name)

    def fetch(self, index):
        return self._observer.fetch(self._inner, index, self._dataset)


def _label_names(dataset):
    names = getattr(dataset, "classes", None)
    if isinstance(names, (list, tuple)) and names and all(isinstance(n, str) for n in names):
        return list(names)
    return None


class _TracedItems:
    """A map-style dataset whose planned rows are traced."""

    def __init__(self, dataset, by_row, tracer, obs):
        self._ds, self._by_row, self._tracer, self._obs = dataset, by_row, tracer, obs
        self._row = 0

    def __getattr__(self, name):
        return getattr(self._ds, name)

    def __len__(self):
        return len(self._ds)

    def __getitem__(self, idx):
        row = self._row
        self._row += 1
        entry = self._by_row.get(row)
        if entry is None or self._tracer.failed:
            return self._ds[idx]
        if entry[2] < 0:
            entry[2] = index_value(idx)
        out, trace = self._tracer.trace(self._ds, lambda: self._ds[idx], entry[0], entry[2])
        if trace is not None:
            self._obs.traces[entry[0]] = trace
        return out


class _TracedIter:
    """An iterable dataset's iterator whose first k items are traced."""

    def __init__(self, it, dataset, k, tracer, obs):
        self._it, self._ds, self._k, self._tracer, self._obs = it, dataset, k, tracer, obs
        self.count = 0

    def __iter__(self):
        return self

    def __next__(self):
        row = self.count
        if row >= self._k or self._tracer.failed:
            item = next(self._it)
        else:
            item, trace = self._tracer.trace(self._ds, lambda: next(self._it), row, -1)
            if trace is not None:
                self._obs.traces[row] = trace
        self.count += 1
        return item


class Observer:
    def __init__(self, ctx, on_error):
        self.s = ctx  # CaptureContext
        self.tracer = ItemTracer(ctx, on_error)
        self._open = []
        self._followed = {}   # id(dataset) -> (dataset, FollowedIndices)

    def begin(self):
        self._open.append(FetchObservation())

    def end(self):
        return self._open.pop() if self._open else None

    def _indices_for(self, dataset):
        entry = self._followed.get(id(dataset))
        if entry is None or entry[0] is not dataset:
            entry = self._followed[id(dataset)] = (dataset, FollowedIndices(self.s.samples))
        return entry[1]

    def fetch(self, inner, index, dataset):
        obs = self._open[-1] if self._open else None
        if obs is None or self.tracer.failed or not self.s.active or self.s.samples <= 0:
            return inner.fetch(index)
        obs.followed, obs.traces, obs.label_names = None, {}, _label_names(dataset)
        try:
            if isinstance(inner, _MapDatasetFetcher) and inner.auto_collation:
                return self._fetch_map(inner, index, dataset, obs)
            if isinstance(inner, _IterableDatasetFetcher) and inner.auto_collation:
                return self._fetch_iterable(inner, index, obs)
            return inner.fetch(index)
        except BaseException:
            obs.followed, obs.traces = None, {}
            raise

    def _fetch_map(self, inner, index, dataset, obs):
        ds = inner.dataset
        if getattr(ds, "__getitems__", None):
            self.s.notice("pipeline_getitems", "%s defines __getitems__ (a whole batch per call): its samples' "
                          "transforms are not recorded one by one" % type(ds).__name__)
            return inner.fetch(index)
        try:
            plan = self._plan(index, dataset)
        except Exception as e:  # noqa: BLE001: our planning never breaks the fetch
            self.tracer.fail(e)
            return inner.fetch(index)
        inner.dataset = _TracedItems(ds, {e[1]: e for e in plan}, self.tracer, obs)
        try:
            data = inner.fetch(index)
        finally:
            inner.dataset = ds
        obs.followed = plan
        return data

    def _plan(self, index, dataset):
        if isinstance(index, (list, tuple, range)):
            return self._indices_for(dataset).plan(list(index))
        return first_rows(self.s.samples, self.s.samples)

    def _fetch_iterable(self, inner, index, obs):
        it = inner.dataset_iter
        view = _TracedIter(it, inner.dataset, self.s.samples, self.tracer, obs)
        inner.dataset_iter = view
        try:
            data = inner.fetch(index)
        finally:
            inner.dataset_iter = it
        obs.followed = first_rows(self.s.samples, view.count)
        return data
