"""The records the session and the captures hand to the native recorder.

The Python -> C++ boundary is plain dicts (read by recorder/src/py_records.cpp
and the Recorder's add_loss / add_optimizer_step / write_meta), one per schema
table of schema/recording.fbs. Build them only with the constructors here:
their keyword-only arguments are the table's fields, so a misspelt field is a
TypeError where the record is made instead of a default silently recorded
(py_records.cpp also rejects keys it does not know). An optional argument
left None is left out of the dict: the schema's default is recorded.

Tensor ids are the ones ``Recorder.tensor()`` / ``tensors()`` returned; event
ids the ones ``Recorder.begin()`` returned.
"""


def _given(fields):
    """The dict of the fields that are not None, in argument order."""
    return {k: v for k, v in fields.items() if v is not None}


# ---------------------------------------------------------------- samples --
def sample_batch(*, step, batch_event, batch, samples):
    """SampleBatch: the followed samples of one batch (``samples``: sample())."""
    return _given(locals())


def sample(*, id, batch_position, input, dataset_index=None, label=None, label_index=None, transforms=None):
    """Sample: one followed sample (``transforms``: transform_step(), leaf calls)."""
    return _given(locals())


def transform_step(*, name, class_name, event, input=None, output=None, input_kind=None, output_kind=None,
                   rng_state=None):
    """TransformStep: one call of the data pipeline on a followed sample
    (``*_kind``: ValueKind numbers; ``rng_state``: the torch RNG state tensor)."""
    return _given(locals())


# --------------------------------------------------------------- insights --
def insights(*, attention=None, gradcam=None, embeddings=None, tables=None, library_attention=None):
    """InsightBatch: lists of the records below, written with one call."""
    return _given(locals())


def attention(*, step, module, event, sample, shape, weights, tokens, token_labels, source=None, kind=None,
              mask=None, full=None, dropout=None):
    """AttentionRecord: one followed sample's attention weights on one module
    call (``source``: 0 captured, 1 rebuilt; ``mask``: tensor id or None)."""
    return _given(locals())


def gradcam(*, step, module, sample, target, class_index, map):
    """GradCamRecord (``target``: 0 predicted class, 1 true class)."""
    return _given(locals())


def embedding(*, step, module, samples, labels, vectors, positions=None, rows=None, row_labels=None,
              batch_vectors=None, batch_size=None):
    """EmbeddingRecord: the followed samples' pooled vectors at one module
    (``positions``: their batch rows), and the batch rows' (``rows``,
    ``row_labels``, ``batch_vectors``; ``batch_size``: the batch's rows)."""
    return _given(locals())


def embedding_table(*, module, rows, labels):
    """EmbeddingTableRecord: the leading rows of an nn.Embedding's weight."""
    return _given(locals())


def library_attention(*, module, kind):
    """LibraryAttention: attention computed inside torch, weights not exposed."""
    return _given(locals())


# ------------------------------------------------------------------- loss --
NO_EVENT = 2 ** 64 - 1  # LossRecord.event when no recognised loss call fed the loss


def loss(*, step, event, call, value, value_repr, reduction, args, samples, logits=None, targets=None,
         tokens=None, outer="", call_value=None):
    """LossRecord (``args``: [(name, repr)]; ``samples``: sample_loss();
    ``tokens``: token_layout() or None; ``event``: NO_EVENT and ``call`` ""
    when no recognised call fed the loss; ``outer``: the loss's grad_fn name
    when it is not the call's output; ``call_value``: then the call's own
    output value)."""
    return _given(locals())


def sample_loss(*, sample, batch_row, logits, target, neg_log_p, p_target, loss, predicted):
    """SampleLoss: one followed sample's row of a classification loss."""
    return _given(locals())


def token_layout(*, batch, tokens, vocab, ignore_index, ignored, token_losses):
    """TokenLayout: logits [B*T, V] reshaped from [B, T, V]."""
    return _given(locals())


# -------------------------------------------------------------- optimizer --
def optimizer_step(*, step, event, optimizer_class, groups, params, skipped=False, grad_scale=0.0):
    """OptimizerStepRecord (``groups``: param_group(); ``params``: [(name,
    weight id, grad id, update id, weight-after id)]; ``skipped``: no update
    ran, update and after are -1; ``grad_scale``: GradScaler's scale during
    the backward, 0 when none)."""
    return _given(locals())


def param_group(*, hyper, params):
    """ParamGroup (``hyper``: [(name, repr)]; ``params``: parameter names)."""
    return _given(locals())


# -------------------------------------------------------------------- run --
def run_meta(*, script, argv, cwd, project_dir, python_version, torch_version, device, hostname, tvis_version,
             started_unix_ms, finished_unix_ms, steps_requested, steps_recorded, complete, exit_code, exception,
             traceback, notices, options, optimizer_class, param_shards=()):
    """RunMeta (``notices``: [(code, message)]; ``options``: [(key, value)];
    ``param_shards``: [param_shard()])."""
    return _given(locals())


def param_shard(*, name, global_shape, local_shape, offsets, flat_offset, mesh_shape, mesh_coord, placements,
                source):
    """ParamShard: where this rank's part of parameter ``name`` lies in the
    whole (``offsets`` per dim of a box part, else ``flat_offset`` of a flat
    part and ``offsets`` empty)."""
    return _given(locals())
