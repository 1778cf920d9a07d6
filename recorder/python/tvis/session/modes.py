"""Module modes (diagnose's mode check, analysis/src/check_modes.cpp): each
call of the top-level module carries ``model_training`` = "1" or "0" in its
event's detail, and each call of a module whose output depends on
``module.training`` carries ``training`` = "1" or "0".

Mode-sensitive: dropout with p > 0 (torch.nn.modules.dropout._DropoutNd:
Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout) and BatchNorm
that tracks running statistics (_BatchNorm: BatchNorm1d/2d/3d,
SyncBatchNorm). Dropout with p = 0 and BatchNorm without running statistics
compute the same thing in both modes and carry nothing. Reading
``.training`` and ``.p`` changes nothing."""

import torch

_DROPOUT = torch.nn.modules.dropout._DropoutNd
_BATCH_NORM = torch.nn.modules.batchnorm._BatchNorm


def mode_sensitive(module):
    """Whether `module`'s output depends on its training flag."""
    if isinstance(module, _DROPOUT):
        return getattr(module, "p", 0) > 0
    if isinstance(module, _BATCH_NORM):
        return bool(getattr(module, "track_running_stats", False))
    return False


def mode_detail(module, top):
    """The detail the call's event carries: ("model_training", "1"|"0") for
    the top-level call (`top`: the model as the script called it) and
    ("training", "1"|"0") for a mode-sensitive module; None for neither."""
    flag = "1" if module.training else "0"
    kvs = [("model_training", flag)] if top else []
    if mode_sensitive(module):
        kvs.append(("training", flag))
    return kvs or None
