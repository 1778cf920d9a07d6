"""The schema's enum numbers as the glue uses them (schema/recording.fbs).

Nothing here is typed by hand: the numbers come from ``_tvis_schema``, which
the build generates from recording.fbs beside the ``_tvis_native`` module
(schema/gen/schema_gen.cpp; ``tvis.native.generated()``).

- ``enum(name)``: one enum as a namespace of the schema's own names
  (``enum("ValueKind").PILImage``).
- Phase, EventKind and TensorRole's values are also module constants named in
  UPPER_SNAKE_CASE (``FORWARD``, ``MODULE_CALL``, ``DATASET_GET_ITEM``,
  ``GRAD_CAM``, ``LOCAL_GRAD``), the names the session and captures use.
- ``DEFAULTS[table]``: what each field of a table reads as when a chunk
  leaves it out (tvis/_read.py).
"""

import re
import types

from . import native

_generated = native.generated()

ENUMS = _generated.ENUMS
FIELDS = _generated.FIELDS
DEFAULTS = _generated.DEFAULTS


def enum(name):
    """The schema enum ``name`` as a namespace: its members by their schema names."""
    return types.SimpleNamespace(**ENUMS[name])


def constant_name(member):
    """A schema member's UPPER_SNAKE_CASE name: ModuleCall -> MODULE_CALL, PILImage -> PIL_IMAGE."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", member).upper()


def _constants(enums):
    out = {}
    for e in enums:
        for member, value in ENUMS[e].items():
            name = constant_name(member)
            if name in out:
                raise ImportError("tvis.schema: %s is both %s and %s in recording.fbs" % (name, out[name][0], e))
            out[name] = (e, value)
    return {name: value for name, (_, value) in out.items()}


CONSTANT_ENUMS = ("Phase", "EventKind", "TensorRole")
globals().update(_constants(CONSTANT_ENUMS))
