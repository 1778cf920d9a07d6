"""Module modes (diagnose's mode check, analysis/src/check_modes.cpp): each
call of the top-level module carries EventDetail ``model_training`` (the
model's ``.training``) in its event's detail, and each call of a module whose
output depends on ``module.training`` carries ``training``.

Mode-sensitive: dropout with p > 0 (torch.nn.modules.dropout._DropoutNd:
Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout) and BatchNorm
that tracks running statistics (_BatchNorm: BatchNorm1d/2d/3d,
SyncBatchNorm). Dropout with p = 0 and BatchNorm without running statistics
compute the same thing in both modes and carry nothing. Reading
``.training`` and ``.p`` changes nothing."""

import torch

from .. import records as R

_DROPOUT = torch.nn.modules.dropout._DropoutNd
_BATCH_NORM = torch.nn.modules.batchnorm._BatchNorm
_SENSITIVE_TYPES = (_DROPOUT, _BATCH_NORM)


def mode_sensitive(module):
    """Whether `module`'s output depends on its training flag."""
    if isinstance(module, _DROPOUT):
        return getattr(module, "p", 0) > 0
    if isinstance(module, _BATCH_NORM):
        return bool(getattr(module, "track_running_stats", False))
    return False


# The details a call can carry, built once: a call adds no Python work
# beyond picking one. By (top-level call, mode-sensitive module, training).
_DETAILS = {(top, sensitive, training): R.event_detail(model_training=training if top else None,
                                                       training=training if sensitive else None) or None
            for top in (False, True) for sensitive in (False, True) for training in (False, True)}


def mode_detail(module, top):
    """The detail the call's event carries (an EventDetail dict, shared: not to
    be changed): ``model_training`` for the top-level call (`top`: the model as
    the script called it), ``training`` for a mode-sensitive module; None for
    neither."""
    return _DETAILS[top, mode_sensitive(module), bool(module.training)]


class ModeProbe:
    """Subscriber (hook_bus): each module call's mode detail, added when the
    call begins. Per call: one type check (mode_sensitive) and, for the
    top-level call or a mode-sensitive module, one add_detail."""

    def __init__(self, session):
        self._stack = session._stack  # the session's open calls (this call is on it: the top one when alone)
        self._rec = session.rec

    def on_module_pre(self, module, eid, args, kwargs):
        top = len(self._stack) == 1
        if top or isinstance(module, _SENSITIVE_TYPES):  # else: no detail (mode_detail gives None)
            detail = mode_detail(module, top)
            if detail is not None:
                self._rec.add_detail(eid, detail)


def attach(session):
    return ModeProbe(session)
