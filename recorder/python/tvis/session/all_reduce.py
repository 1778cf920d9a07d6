"""DDP's gradient all-reduce inside each recorded backward (docs/cli.md
"Distributed").

DistributedDataParallel all-reduces gradients in buckets while backward
runs, and waits for the last of them in an autograd-engine callback that it
queues when its last bucket is ready. For a backward that reaches the
parameters of a DDP model that synchronises gradients, this records:

- each parameter's local gradient, before all-reduce (role LocalGrad,
  statistics only), on the BackwardCall. A tensor hook sees the gradient
  before AccumulateGrad and before DDP's hook; it returns None and keeps no
  reference, so the gradient, its accumulation and the all-reduce are those
  of a plain run.
- an AllReduce event inside the BackwardCall, from the moment the graph's
  last gradient is computed to backward's return: the all-reduce time the
  backward did not hide. It begins in an engine callback queued at the first
  local gradient, which therefore runs before DDP's (queued later).

The gradient recorded at optimizer.step() (role Grad) is the all-reduced one.
"""
import functools
import weakref

import torch

from .. import records as R
from .. import schema as P

try:
    from torch.nn.parallel import DistributedDataParallel as _DDP
except ImportError:  # a torch without distributed support
    _DDP = None


class AllReduceProbe:
    """Subscriber (hook_bus): on_forward hooks a DDP model's parameters once;
    on_backward_call_open arms, on_backward_call_close disarms."""

    def __init__(self, session):
        self._session = session
        self._models = weakref.WeakSet()  # DDP models whose parameters carry our hook
        self._backward = None   # the open BackwardCall's event id while armed
        self._event = None      # the open AllReduce event
        self._grads = 0         # local gradients seen in this backward
        self._bytes = 0
        self._names = {}        # {id(parameter): path}, fixed for one backward

    def on_forward(self, module, eid):
        """A top-level module call: hooks a DDP model's parameters once."""
        if _DDP is None or not isinstance(module, _DDP) or module in self._models:
            return
        self._models.add(module)
        ref = weakref.ref(module)
        for p in module.parameters():
            if p.requires_grad:
                p.register_hook(functools.partial(self._local_grad, ref, id(p)))

    def on_backward_call_open(self, backward_event, loss):
        """Before a recorded backward runs."""
        self._backward, self._event, self._grads, self._bytes = backward_event, None, 0, 0
        self._names = self._session._param_names() if self._models else {}

    def on_backward_call_close(self, backward_event):
        """After it returned (or raised): the all-reduce ends with it."""
        s = self._session
        if self._event is not None and s.active:
            world = _world_size()
            s.rec.add_detail(self._event, R.event_detail(gradients=self._grads, bytes=self._bytes, world_size=world))
            s.rec.end(self._event)
        self._backward, self._event = None, None

    def _local_grad(self, model_ref, param_id, grad):
        s = self._session
        model = model_ref()
        if self._backward is None or model is None or not model.require_backward_grad_sync or not s.active:
            return None  # not a recorded backward, or no_sync(): no all-reduce follows
        if grad is None:
            return None  # an unused parameter's hook (find_unused_parameters=True): no local gradient
        with s._guard("the all-reduce probe"):
            if self._grads == 0:
                torch.autograd.Variable._execution_engine.queue_callback(self._backward_computed)
            self._grads += 1
            self._bytes += grad.numel() * grad.element_size()
            s.rec.tensor(grad, P.LOCAL_GRAD, self._backward, self._names.get(param_id, ""), 0)
        return None

    def _backward_computed(self):
        s = self._session
        if self._backward is None or not s.active:
            return
        with s._guard("the all-reduce probe"):
            self._event = s.rec.begin(P.ALL_REDUCE, "all_reduce", "DistributedDataParallel", 0, 0, 0, 0)


def attach(session):
    return AllReduceProbe(session)


def _world_size():
    import torch.distributed as dist
    try:
        return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1
    except Exception:  # noqa: BLE001: a process group torn down mid-call
        return 1
