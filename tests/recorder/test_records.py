"""Records crossing into C++ are typed: tvis.records' constructors take their
schema fields as keyword-only arguments (a misspelt field is a TypeError where
the record is built), and the native recorder rejects a dict key it does not
know with a ValueError naming the key and the record, instead of recording
the field's default."""
import inspect
import re

import pytest

from tvis import records as R


def _fields(fn):
    return [p.name for p in inspect.signature(fn).parameters.values()]


def test_constructors_take_only_their_fields():
    with pytest.raises(TypeError, match="class_idx"):
        R.gradcam(step=0, module="conv", sample=0, target=0, class_idx=3, map=1)
    with pytest.raises(TypeError):
        R.sample(id=0, batch_position=0)  # input is required
    assert R.sample(id=1, batch_position=2, input=3, label_index=None) == {"id": 1, "batch_position": 2, "input": 3}


@pytest.fixture
def rec(tmp_path):
    import _tvis_native
    return _tvis_native.Recorder(str(tmp_path / "run.tvis"), {"max_elems": 1000, "samples": 2, "project_dir": str(tmp_path)})


def _known_keys(err):
    return re.search(r"\(its keys: (.*)\)", str(err)).group(1).split(", ")


# (record kind as py_records names it, tvis.records constructor, how the recorder gets one)
_CHECKED = [
    ("SampleBatch", R.sample_batch, lambda rec, d: rec.add_samples(d)),
    ("Sample", R.sample, lambda rec, d: rec.add_samples({"samples": [d]})),
    ("TransformStep", R.transform_step, lambda rec, d: rec.add_samples({"samples": [{"transforms": [d]}]})),
    ("InsightBatch", R.insights, lambda rec, d: rec.add_insights(d)),
    ("AttentionRecord", R.attention, lambda rec, d: rec.add_insights({"attention": [d]})),
    ("GradCamRecord", R.gradcam, lambda rec, d: rec.add_insights({"gradcam": [d]})),
    ("EmbeddingRecord", R.embedding, lambda rec, d: rec.add_insights({"embeddings": [d]})),
    ("EmbeddingTableRecord", R.embedding_table, lambda rec, d: rec.add_insights({"tables": [d]})),
    ("LibraryAttention", R.library_attention, lambda rec, d: rec.add_insights({"library_attention": [d]})),
]


@pytest.mark.parametrize("kind,constructor,send", _CHECKED, ids=[c[0] for c in _CHECKED])
def test_native_recorder_rejects_unknown_keys(rec, kind, constructor, send):
    with pytest.raises(ValueError, match=r"%s record has no key 'misspelt'" % kind) as err:
        send(rec, {"misspelt": 1})
    # the keys C++ reads are exactly the constructor's fields
    assert sorted(_known_keys(err.value)) == sorted(_fields(constructor))
