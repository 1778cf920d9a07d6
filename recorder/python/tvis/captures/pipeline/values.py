"""Values met in a data pipeline, as tensors the recorder can keep.

``as_tensor(value)`` returns ``(tensor or None, kind, description)`` where
kind is the schema's ValueKind:

- torch.Tensor        -> the tensor itself (the recorder dedups it by identity), Tensor
- PIL.Image.Image     -> its pixels as NumPy gives them (``np.array(img)``:
                         H x W for one band, H x W x C otherwise), PILImage;
                         the description names the mode ("PIL RGB 28x28")
- numpy.ndarray       -> the same values and shape, NDArray
- bool/int/float and NumPy scalars -> a 0-d tensor, Scalar
- anything else       -> None, Other (described by its type; strings and
                         paths by their value, containers by their length)

Unsigned NumPy types torch 1.13 lacks (uint16/32/64) widen to the next signed
type that holds every value (uint64 beyond int64 is Other); the
description keeps the original dtype. Contract: the value is only read; a
NumPy array that is not writable is copied before torch sees it (torch warns
on read-only arrays otherwise, and a recorder must not print).
"""

import os

import numpy as np
import torch

from ... import schema as _schema

_KIND = _schema.enum("ValueKind")
TENSOR, PIL_IMAGE, NDARRAY, SCALAR, OTHER = _KIND.Tensor, _KIND.PILImage, _KIND.NDArray, _KIND.Scalar, _KIND.Other

_WIDEN = {np.dtype(np.uint16): np.int32, np.dtype(np.uint32): np.int64}
_TORCH_OK = {np.dtype(t) for t in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                   np.float16, np.float32, np.float64, np.complex64, np.complex128)}

try:
    from PIL import Image as _PIL
except ImportError:  # torchvision without PIL is unusual but possible
    _PIL = None


def _array_tensor(arr):
    """A tensor with the array's values, or None when torch has no such dtype."""
    if arr.dtype in _WIDEN:
        arr = arr.astype(_WIDEN[arr.dtype])
    elif arr.dtype not in _TORCH_OK:
        return None
    if not arr.flags.writeable or not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr).copy()
    return torch.from_numpy(arr)


def _shape(s):
    return "x".join(str(d) for d in s)


def as_tensor(value):
    if isinstance(value, torch.Tensor):
        return value, TENSOR, "Tensor %s [%s]" % (str(value.dtype).replace("torch.", ""),
                                                         _shape(value.shape))
    if _PIL is not None and isinstance(value, _PIL.Image):
        desc = "PIL %s %dx%d" % (value.mode, value.width, value.height)
        return _array_tensor(np.array(value)), PIL_IMAGE, desc
    if isinstance(value, np.ndarray):
        return _array_tensor(value), NDARRAY, "ndarray %s (%s)" % (value.dtype, _shape(value.shape))
    if isinstance(value, (bool, int, float, np.generic)) and not isinstance(value, (np.str_, np.bytes_)):
        arr = np.asarray(value)
        t = _array_tensor(arr.reshape(()))
        return t, SCALAR, "%s %r" % (type(value).__name__, value)
    if isinstance(value, (str, bytes, os.PathLike)):
        text = repr(os.fspath(value) if isinstance(value, os.PathLike) else value)
        return None, OTHER, "%s %s" % (type(value).__name__, text[:200])
    if isinstance(value, (tuple, list, dict)):
        return None, OTHER, "%s of %d" % (type(value).__name__, len(value))
    return None, OTHER, type(value).__name__
