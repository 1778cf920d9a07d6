"""The records the session and the captures hand to the native recorder.

The Python -> C++ boundary is plain dicts, one per schema table of
schema/recording.fbs. Build them only with the constructors here: one per
table, generated from the schema at build time (``_tvis_records``, beside
``_tvis_native``; schema/gen/schema_gen.cpp), named in snake_case
(``LossRecord`` -> ``loss_record``). Their keyword-only arguments are the
table's fields, so a misspelt field is a TypeError where the record is made
instead of a default silently recorded (the native conversion, generated from
the same schema, also rejects keys it does not know). A field marked
``tvis_required`` in the schema must be given; an optional argument left None
is left out of the dict: the schema's default is recorded.

A record of a Body member goes to the recorder with
``Recorder.add_record("LossRecord", record)`` (or the named add_loss,
add_optimizer_step, add_samples, add_insights). A sub-table is a dict built
here, or a tuple of its fields in declaration order: ``args``, ``hyper`` and
``options`` are ``[(name, str)]`` KeyValue pairs, ``notices`` ``[(code,
message)]``, OptimizerStepRecord's ``params`` ``[(name, weight id, grad id,
update id, weight-after id)]`` ParamRecord rows. Enums are their numbers
(tvis.schema).

An event's evidence (a probe's detail) is an ``event_detail(...)`` dict
given to ``Recorder.add_detail(event, detail)``: its fields are the
EventDetail table's, written into the event as KeyValue text (the schema
says each field's text; analysis reads them back typed).

Tensor ids are the ones ``Recorder.tensor()`` / ``tensors()`` returned; event
ids the ones ``Recorder.begin()`` returned.
"""

from . import native

_generated = native.generated("_tvis_records")

CONSTRUCTORS = _generated.CONSTRUCTORS  # table -> its constructor
globals().update({f.__name__: f for f in CONSTRUCTORS.values()})

# The names the session and captures use where they differ from the table's.
insights = CONSTRUCTORS["InsightBatch"]
attention = CONSTRUCTORS["AttentionRecord"]
gradcam = CONSTRUCTORS["GradCamRecord"]
embedding = CONSTRUCTORS["EmbeddingRecord"]
embedding_table = CONSTRUCTORS["EmbeddingTableRecord"]
loss = CONSTRUCTORS["LossRecord"]
optimizer_step = CONSTRUCTORS["OptimizerStepRecord"]

NO_EVENT = 2 ** 64 - 1  # LossRecord.event when no recognised loss call fed the loss
