"""Capture extension: the data pipeline (dataset item and transforms of each followed sample).

``install`` patches ``DataLoader._get_iterator`` and hands the session's
FetchRecorder an ``Observer`` (``observe.py``):

- ``num_workers == 0``: torch's own iterator, its fetcher observed; notice
  ``pipeline_main_process``.
- ``num_workers > 0``: when ``iter()`` runs on the main thread,
  ``workers.refusal`` finds nothing it cannot reproduce and the
  dataset can be copied once per worker (``fork_copy.py``) with
  the copies' tensors and arrays within ``COPY_BUDGET`` together, an
  ``EmulatedWorkersIter`` runs the workers in the main process exactly as
  the real ones would run (notice ``workers_in_main``); otherwise torch's
  real workers run and the notice ``pipeline_not_observed`` says why.

As host of the emulated workers it keeps module hooks quiet during worker
work (``ctx.enter_pipeline``) and names worker code that initializes
CUDA (notice ``cuda_in_workers``) or runs on another thread while others
run (notice ``workers_off_thread``). A failure of the tracing switches the
tracing off with notice ``pipeline_failed``; the emulation, which training
depends on, goes on.
"""

import functools
import threading

from torch.utils.data.dataloader import DataLoader, _SingleProcessDataLoaderIter

from .fork_copy import array_bytes, fork_copy
from .observe import ObservedFetcher, Observer
from .workers import EmulatedWorkersIter, refusal


# Memory the dataset copies of emulated workers may take together (tensors and
# arrays; a fork shares them copy-on-write): beyond it the real workers run.
COPY_BUDGET = 512 << 20


def attach(ctx):
    return PipelineCapture(ctx)


def _fn_name(fn):
    return getattr(fn, "__qualname__", None) or type(fn).__name__


class PipelineCapture:
    def __init__(self, ctx):
        self.s = ctx
        self.observer = Observer(ctx, self._tracing_failed)

    def install(self):
        self.s.patch(DataLoader, "_get_iterator", self._wrap_get_iterator)
        self.s.set_fetch_observer(self.observer)

    # ----------------------------------------------- host of the workers --
    def wrap_fetcher(self, fetcher, dataset):
        return ObservedFetcher(fetcher, self.observer, dataset)

    def enter_worker(self):
        self.s.enter_pipeline()

    def exit_worker(self):
        self.s.exit_pipeline()

    def off_thread(self):
        self.s.notice("workers_off_thread", "a DataLoader whose workers run in the main process was iterated on "
                      "another thread; its worker streams were swapped in while other threads ran, which real "
                      "workers never do")

    def cuda_in_worker(self):
        self.s.notice("cuda_in_workers", "DataLoader worker code used CUDA while run in the main process; real "
                      "forked workers would have their own CUDA state (or fail if the main process had initialized "
                      "CUDA), so this run may differ from one without tvis")

    # ------------------------------------------------------------ iter() --
    def _wrap_get_iterator(self, orig):
        cap = self

        @functools.wraps(orig)
        def _get_iterator(loader):
            if not cap.s.active:
                return orig(loader)
            if loader.num_workers == 0:
                return cap._single_process(orig(loader), loader)
            copies, why = cap._worker_copies(loader)
            if why is not None:
                cap.s.notice("pipeline_not_observed", "a DataLoader (num_workers=%d) ran its real worker processes "
                             "because %s: its batches were recorded, its dataset and transforms were not"
                             % (loader.num_workers, why))
                return orig(loader)
            loader.check_worker_number_rationality()
            cap._note_workers_in_main(loader)
            return EmulatedWorkersIter(loader, copies, cap)

        return _get_iterator

    def _single_process(self, it, loader):
        if isinstance(it, _SingleProcessDataLoaderIter):
            it._dataset_fetcher = self.wrap_fetcher(it._dataset_fetcher, loader.dataset)
            self.s.notice("pipeline_main_process", "the DataLoader ran in the main process (num_workers=0): the "
                          "dataset's __getitem__ and transforms were recorded for %d followed samples per batch"
                          % self.s.samples)
        return it

    @staticmethod
    def _worker_copies(loader):
        """([(dataset, collate_fn, worker_init_fn)] copied once per worker, None) or (None, why the
        real workers must run). Copies are made before the iterator draws its base seed, as a fork
        copies them."""
        if threading.current_thread() is not threading.main_thread():
            return None, "it is iterated on a thread other than the main thread"
        try:
            why = refusal(loader)
        except Exception as e:  # noqa: BLE001: never break the script on our checks
            why = "tvis could not check it (%s: %s)" % (type(e).__name__, e)
        if why is not None:
            return None, why
        try:
            parts = (loader.dataset, loader.collate_fn, loader.worker_init_fn)
            size = array_bytes(parts)
            if size * loader.num_workers > COPY_BUDGET:
                return None, ("copying its dataset's %d MB of arrays for each of its %d workers would take %d MB "
                              "(forked workers share them)" % (size >> 20, loader.num_workers,
                                                              (size * loader.num_workers) >> 20))
            return [fork_copy(parts) for _ in range(loader.num_workers)], None
        except Exception as e:  # noqa: BLE001
            return None, "its dataset, collate_fn or worker_init_fn cannot be copied for each worker (%s: %s)" \
                % (type(e).__name__, e)

    def _note_workers_in_main(self, loader):
        extra = ""
        if loader.persistent_workers:
            extra += ", persistent_workers=True"
        if loader.worker_init_fn is not None:
            extra += ", worker_init_fn=%s" % _fn_name(loader.worker_init_fn)
        if not getattr(loader, "in_order", True):  # torch 2.6+: real workers' results come as they finish
            extra += ", in_order=False: batches taken in send order, one of the orders real workers may deliver"
        self.s.notice("workers_in_main", (
            "DataLoader workers (num_workers=%d%s) were run in the main process so the pipeline could be "
            "observed, reproducing real workers exactly: the base seed and the sampler's draws at iter(), each "
            "worker's seeded torch/random/NumPy streams, dataset copy, get_worker_info(), worker_init_fn and "
            "set_num_threads(1), and the workers' round-robin batch order; global state that worker code "
            "changes outside these (module globals, files) is shared with the main process")
            % (loader.num_workers, extra))

    def _tracing_failed(self, e):
        self.s.notice("pipeline_failed", "pipeline tracing stopped after an internal error: %s: %s; batches "
                      "and DataLoader workers are unaffected" % (type(e).__name__, e))

