"""DataLoader workers run in the main process, doing exactly what real ones do.

``EmulatedWorkersIter(loader, copies, host)`` stands in for torch's
``_MultiProcessingDataLoaderIter`` (torch/utils/data/dataloader.py and
_utils/worker.py, torch 1.13 to 2.14: one code path, which reads what the
installed torch offers, see "torch versions" below) and reproduces, in order:

main process
- at creation: the base seed drawn from ``loader.generator`` (or the global
  torch stream) by ``_BaseDataLoaderIter.__init__``; the workers started;
  the current device read when pinning memory (``_pin_memory_setup``); then
  ``_reset``: a fresh sampler iterator and ``prefetch_factor * num_workers``
  indices taken from it at once (the sampler's draws happen at ``iter()``);
- each batch: the next task in send order, one more index taken after it
  (``_process_data``), worker errors re-raised through ``ExceptionWrapper``,
  pinned memory when the loader pins;
- tasks assigned round-robin over the active workers (with ``in_order=False``
  only to a worker with fewer than its share of the outstanding tasks, as
  torch does; results are then taken in send order, one of the orders real
  workers may deliver); an IterableDataset worker that runs out is skipped
  from then on;
- ``persistent_workers``: the same workers (their streams, dataset copies and
  ``worker_init_fn`` state) serve every epoch; at the next ``iter()`` they
  first finish the tasks still queued for them (results dropped, as the real
  ones' are) and recreate their fetchers.

each worker
- its own copy of the dataset, ``collate_fn`` and ``worker_init_fn``
  (``copies[i]``: one ``fork_copy`` of the three, made before the
  base seed is drawn, so a collate_fn bound to the dataset is bound to the
  copy as in a fork), the dataset seen through ``get_worker_info()``;
- its streams seeded as a real worker seeds them (``rng.Streams``)
  and carried from task to task; ``torch.set_num_threads(1)``;
- ``worker_init_fn(worker_id)`` then the fetcher created, failures kept and
  raised at that worker's first task;
- tasks in the order they were sent to it.

Work "in" a worker runs between ``_inside`` swapping the worker's streams,
thread count and worker info in and the main process's back: the main
process's streams never see a worker's draws. CUDA generator states are put
back too (``CudaSeedGuard``); when worker code initializes CUDA, or a batch
holds CUDA tensors (a forked real worker cannot use CUDA its parent
initialized), the host is told (``cuda_in_worker``).

``refusal(loader)`` names what this cannot reproduce (then the real workers
run): DataPipes, torch.distributed, start methods other than fork (spawn
re-imports the script, which the main process cannot replay), custom
multiprocessing contexts.

torch versions: the workers' seeding is the same in 1.13 and 2.14 (torch,
``random``: ``base_seed + worker_id``; NumPy: ``_generate_state``; see
``rng.Streams``). What moved: ``prefetch_factor`` is set by
``_BaseDataLoaderIter`` in 1.13 and by ``_MultiProcessingDataLoaderIter``
in 2.x, which also reads ``loader.in_order`` (2.6+) and counts tasks per
worker; the pin-memory setup reads ``torch.accelerator``'s current device
(``torch.cuda.current_device()`` before it); ``WorkerInfo`` became a frozen
dataclass with optional fields (``rng``, ``worker_method``). This module sets
what the real iterator's own ``__init__`` sets from ``loader`` itself and
checks for features (``loader.in_order``, ``torch.accelerator``), never
version numbers.

``host`` provides ``wrap_fetcher(fetcher, dataset)`` (a fetcher used in
place of torch's), ``enter_worker()``/``exit_worker()`` around worker work,
``cuda_in_worker()`` and ``off_thread()`` (worker work on a thread other
than the main one while others run: the swapped global streams are then
visible to them).
"""

import contextlib
import itertools
import multiprocessing as _mp
import threading

import torch
import torch.distributed as dist
from torch._utils import ExceptionWrapper
from torch.utils.data import IterDataPipe, MapDataPipe
from torch.utils.data import _utils
from torch.utils.data._utils import worker as _worker_mod
from torch.utils.data.dataloader import _BaseDataLoaderIter, _DatasetKind

from .rng import CudaSeedGuard, Streams

_STANDARD_CONTEXTS = (_mp.context.ForkContext, _mp.context.SpawnContext, _mp.context.ForkServerContext,
                      _mp.context.DefaultContext)


def start_method(loader):
    """The start method the real workers would use (fixes the default
    context as the real DataLoader's first Queue() does), or None for a
    custom multiprocessing context."""
    ctx = loader.multiprocessing_context
    if ctx is None:
        return torch.multiprocessing.get_context().get_start_method()
    if type(ctx) not in _STANDARD_CONTEXTS:
        return None
    return ctx.get_start_method()


def refusal(loader):
    """Why the workers of `loader` cannot be run in the main process exactly, or None."""
    if isinstance(loader.dataset, (IterDataPipe, MapDataPipe)):
        return "its dataset is a DataPipe (sharding and shared seeds are not reproduced)"
    if dist.is_available() and dist.is_initialized():
        return "torch.distributed is initialized"
    method = start_method(loader)
    if method is None:
        return "it has a custom multiprocessing_context (%s)" % type(loader.multiprocessing_context).__name__
    if method != "fork":
        return "its workers start by %r, which re-imports the script in each worker" % method
    return None


def _holds_cuda(data, depth=0):
    if isinstance(data, torch.Tensor):
        return data.is_cuda
    if depth < 2 and isinstance(data, (list, tuple)):
        return any(_holds_cuda(x, depth + 1) for x in data)
    if depth < 2 and isinstance(data, dict):
        return any(_holds_cuda(x, depth + 1) for x in data.values())
    return False


class _Worker:
    __slots__ = ("id", "dataset", "collate_fn", "init_fn", "streams", "threads", "info", "fetcher",
                 "init_exception", "iteration_end")

    def __init__(self, wid, num_workers, copies, base_seed):
        self.id = wid
        dataset, self.collate_fn, self.init_fn = copies
        self.dataset = dataset
        self.streams = Streams.seeded(base_seed, wid)
        self.threads = 1
        self.info = _worker_mod.WorkerInfo(id=wid, num_workers=num_workers, seed=base_seed + wid, dataset=dataset)
        self.fetcher = None
        self.init_exception = None
        self.iteration_end = False


def _pin_memory_setup():
    """What the real iterator does in the main process to start its pin-memory
    thread: read the current device (which initializes the accelerator),
    through ``torch.accelerator`` where torch has it (2.x), else CUDA (1.13)."""
    acc = getattr(torch, "accelerator", None)
    if acc is not None and hasattr(acc, "current_device_index"):
        acc.current_device_index()
    else:
        torch.cuda.current_device()


class EmulatedWorkersIter(_BaseDataLoaderIter):
    def __init__(self, loader, copies, host):
        super().__init__(loader)
        # set by _BaseDataLoaderIter in torch 1.13, by _MultiProcessingDataLoaderIter in 2.x
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = getattr(loader, "in_order", True)  # torch 2.6+; always in order before
        assert self._num_workers > 0 and self._prefetch_factor > 0
        self._host = host
        self._shutdown = False
        self._workers = [_Worker(i, self._num_workers, copies[i], self._base_seed) for i in range(self._num_workers)]
        for w in self._workers:
            self._start(w)
        if self._pin_memory:
            _pin_memory_setup()
        self._indices = {}
        self._reset(loader, first_iter=True)

    # ------------------------------------------------------ in a worker --
    @contextlib.contextmanager
    def _inside(self, w):
        if threading.current_thread() is not threading.main_thread() and threading.active_count() > 1:
            self._host.off_thread()
        main = Streams.capture()
        cuda = CudaSeedGuard()
        threads = torch.get_num_threads()
        prev_info = _worker_mod._worker_info
        w.streams.apply()
        if w.threads != threads:
            torch.set_num_threads(w.threads)
        _worker_mod._worker_info = w.info
        self._host.enter_worker()
        try:
            yield
        finally:
            self._host.exit_worker()
            w.streams = Streams.capture()
            w.threads = torch.get_num_threads()
            main.apply()
            if not cuda.restore():
                self._host.cuda_in_worker()
            _worker_mod._worker_info = prev_info
            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)

    def _new_fetcher(self, w):
        f = _DatasetKind.create_fetcher(self._dataset_kind, w.dataset, self._auto_collation, w.collate_fn,
                                        self._drop_last)
        return self._host.wrap_fetcher(f, self._dataset)

    def _start(self, w):
        with self._inside(w):
            try:
                if w.init_fn is not None:
                    w.init_fn(w.id)
                w.fetcher = self._new_fetcher(w)
            except Exception:
                w.init_exception = ExceptionWrapper(where="in DataLoader worker process {}".format(w.id))

    def _resume(self, w):
        with self._inside(w):
            w.iteration_end = False
            w.fetcher = self._new_fetcher(w)

    def _run(self, w, index):
        """One task in worker w: the batch, an ExceptionWrapper or an _IterableDatasetStopIteration."""
        with self._inside(w):
            if w.init_exception is not None:
                data, w.init_exception = w.init_exception, None
                return data
            try:
                if w.fetcher is None:
                    raise RuntimeError("DataLoader worker %d has no fetcher: its worker_init_fn failed" % w.id)
                return w.fetcher.fetch(index)
            except Exception as e:
                if isinstance(e, StopIteration) and self._dataset_kind == _DatasetKind.Iterable:
                    w.iteration_end = True
                    return _worker_mod._IterableDatasetStopIteration(w.id)
                return ExceptionWrapper(where="in DataLoader worker process {}".format(w.id))

    # ------------------------------------------------------- main side --
    def _reset(self, loader, first_iter=False):
        if not first_iter:
            self._drain()
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._indices = {}
        self._tasks_outstanding = 0
        self._workers_status = [True for _ in range(self._num_workers)]
        self._workers_num_tasks = [0 for _ in range(self._num_workers)]
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for w in self._workers:
                self._resume(w)
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _drain(self):
        """Tasks still queued to persistent workers: real ones run them before resuming."""
        for idx in sorted(self._indices):
            w = self._workers[self._task_info[idx][0]]
            if not w.iteration_end:
                self._run(w, self._indices[idx])
        self._indices.clear()

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        assert self._tasks_outstanding < max_tasks
        try:
            index = self._next_index()
        except StopIteration:
            return
        worker_queue_idx = self._next_worker(max_tasks)
        if worker_queue_idx is None:
            return  # the index is dropped, as torch drops it
        self._indices[self._send_idx] = index
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _next_worker(self, max_tasks):
        """The worker the next task goes to, or None: the next active one in the
        cycle; with ``in_order=False`` the next active one holding fewer than
        ``max_tasks // active`` tasks (torch 2.x). Advances the cycle as torch does."""
        for _ in range(self._num_workers):
            wid = next(self._worker_queue_idx_cycle)
            if not self._workers_status[wid]:
                continue
            if self._in_order or self._workers_num_tasks[wid] < max_tasks // sum(self._workers_status):
                return wid
        return None

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                if self._workers_status[self._task_info[self._rcvd_idx][0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._indices.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            idx = self._rcvd_idx
            data = self._run(self._workers[self._task_info[idx][0]], self._indices.pop(idx))
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and \
                    isinstance(data, _worker_mod._IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False
                self._try_put_index()
                continue
            wid = self._task_info.pop(idx)[0]
            if _holds_cuda(data):
                self._host.cuda_in_worker()  # a forked real worker cannot use CUDA the parent initialized
            if self._pin_memory and not isinstance(data, ExceptionWrapper):
                data = _utils.pin_memory.pin_memory(data, self._pin_memory_device)
            return self._process_data(data, wid)

    def _process_data(self, data, worker_idx):
        self._rcvd_idx += 1
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self):
        if not self._shutdown:
            self._shutdown = True
            self._workers = []  # the dataset copies go with them
