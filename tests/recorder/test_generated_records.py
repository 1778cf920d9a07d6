"""The write side's boundary generated from schema/recording.fbs, proved with
no field list written here: every field, its type and which are required come
from the generated _tvis_schema (itself held against the .fbs text by
test_schema_boundary.py).

- Every table has a generated constructor (tvis.records) and converter
  (_tvis_native.schema_from_dict): a record with every field given, built by
  the constructors all the way down, converts and packs to the same values.
- Every Body member but those the recorder writes itself goes through
  Recorder.add_record into a real run file, one chunk of its kind, and reads
  back with the same values (all fields given) or the schema's defaults (only
  the required ones given; a left-out `step` is the recorder's current step);
  the chunk index holds the record's step.
- Bad input gets a clear error: an unknown key, a value of the wrong type, an
  enum number no member has, a tuple longer than the table, an unknown or a
  recorder-owned table name."""
import math

import pytest

from tvis import records as R


_SCALARS = ("bool", "byte", "ubyte", "short", "ushort", "int", "uint", "long", "ulong", "float", "double")


def _scalar(kind, k, default):
    """A value of `kind`, distinct per `k` and never the field's default."""
    value = {
        "bool": None, "byte": -3 - k % 60, "ubyte": 200 + k % 50, "short": -300 - k, "ushort": 40000 + k,
        "int": 100000 + k, "uint": 3000000000 + k, "long": -(2 ** 40) - k, "ulong": 2 ** 63 + k,
        "float": 0.5 + k, "double": 0.25 + k,
    }[kind]
    if kind == "bool":
        return not default
    return value


class _Builder:
    """Full records from the generated TYPES: every field given, sub-tables
    built with their own constructors, vectors of two."""

    def __init__(self, generated):
        self.g = generated
        self.k = 0

    def value(self, table, field, type_):
        if type_.startswith("["):
            return [self.value(table, field, type_[1:-1]) for _ in range(2)]
        self.k += 1
        if type_ == "string":
            return "%s.%s.%d" % (table, field, self.k)
        if type_ in _SCALARS:
            return _scalar(type_, self.k, self.g.DEFAULTS[table].get(field))
        if type_ in self.g.ENUMS:
            return max(self.g.ENUMS[type_].values())  # the last member: never the default 0
        return self.record(type_)

    def record(self, table):
        fields = {f: self.value(table, f, t) for f, t in self.g.TYPES[table].items()}
        return R.CONSTRUCTORS[table](**fields)

    def required(self, table):
        fields = {f: None for f in self.g.FIELDS[table]}
        for f in self.g.REQUIRED[table]:
            fields[f] = self.value(table, f, self.g.TYPES[table][f])
        return R.CONSTRUCTORS[table](**fields)


def _as_read(generated, table, record):
    """`record` as a chunk's JSON spells it: enums by name, sub-tables as dicts."""
    out = {}
    for field, value in record.items():
        type_ = generated.TYPES[table][field]
        many = type_.startswith("[")
        inner = type_[1:-1] if many else type_

        def one(v):
            if inner in generated.ENUMS:
                return {x: n for n, x in generated.ENUMS[inner].items()}[v]
            if inner in generated.FIELDS:
                return _as_read(generated, inner, v)
            return v
        out[field] = [one(v) for v in value] if many else one(value)
    return out


def _expected(generated, table, record):
    """What `table`'s record reads back as from its chunk (a SampleBatch's
    samples take the batch's step: py_from_dict.h adjust)."""
    want = _as_read(generated, table, record)
    if table == "SampleBatch":
        for s in want.get("samples", []):
            s["step"] = want["step"]
    return want


def _json(text):
    """A chunk's JSON, field names as the schema spells them (flatc's C++ names
    a field that is a C++ keyword with a trailing '_': module -> module_)."""
    from tvis._read import _json as parse

    def names(x):
        if isinstance(x, dict):
            return {(k[:-1] if k.endswith("_") else k): names(v) for k, v in x.items()}
        if isinstance(x, list):
            return [names(v) for v in x]
        return x
    return names(parse(text))


def _same(got, want, where):
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), (where, got, want)
        for k in want:
            _same(got[k], want[k], where + "." + k)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, "%s[%d]" % (where, i))
    elif isinstance(want, float):
        assert got == want or (math.isnan(got) and math.isnan(want)), (where, got, want)
    else:
        assert got == want and type(got) is type(want), (where, got, want)


def _converted(generated):
    return [t for t in generated.FIELDS if "Body" not in generated.TYPES[t].values()]


def test_every_table_has_a_constructor_and_a_converter_that_keep_every_field(generated, native):
    tables = _converted(generated)
    assert set(generated.FIELDS) - set(tables) == {"Chunk"}  # the one table with a union (schema_gen's kNotConverted)
    b = _Builder(generated)
    for table in tables:
        record = b.record(table)
        assert list(record) == list(generated.FIELDS[table]), table  # every field given, in order
        _same(_json(native.schema_from_dict(table, record)), _as_read(generated, table, record), table)


def test_a_left_out_field_converts_to_the_schema_default(generated, native):
    for table in _converted(generated):
        got = _json(native.schema_from_dict(table, {}))
        # every field at its default: packed as absent (a NaN default is written: NaN != NaN)
        _same(got, {f: generated.DEFAULTS[table][f] for f in got}, table)
    assert _json(native.schema_from_dict("LossRecord", {"call_value": None})).keys() <= {"call_value"}


def _body_members(generated):
    return [m for m in generated.ENUMS["Body"] if m != "NONE"]


_RECORDER_OWNED = {"RunMeta", "SourceFiles", "EventBatch", "TensorBatch", "TensorData"}


def test_add_record_takes_every_body_member_the_recorder_does_not_write_itself(generated, native):
    assert native.Recorder.records() == [m for m in _body_members(generated) if m not in _RECORDER_OWNED]
    assert {"LossRecord", "GradClipRecord"} <= set(native.Recorder.records())


def _record_run(native, tmp_path, sends, step=7):
    path = str(tmp_path / "run.tvis")
    rec = native.Recorder(path, {"project_dir": str(tmp_path)})
    rec.set_step(step)
    for table, record in sends:
        rec.add_record(table, record)
    rec.finalize({})
    f = native.RunFile(path)
    out = []
    for ordinal, kind, s0, s1, *_ in f.chunks():
        if kind in ("run_meta", "source_files", "index", "tensor_data", "tensors", "events"):
            continue
        chunk = _json(f.chunk_json(ordinal))
        out.append((chunk["body_type"], kind, s0, s1, chunk.get("body", {})))
    return out


def test_every_record_round_trips_through_add_record_with_every_field(generated, native, tmp_path):
    b = _Builder(generated)
    sends = [(t, b.record(t)) for t in native.Recorder.records()]
    got = _record_run(native, tmp_path, sends)
    assert [g[0] for g in got] == [t for t, _ in sends]  # one chunk each, in the order added
    for (table, record), (_, kind, s0, s1, body) in zip(sends, got):
        _same(body, _expected(generated, table, record), table)
        if "step" in generated.FIELDS[table]:
            assert s0 == s1 == record["step"], (table, s0, s1)


def test_records_given_only_their_required_fields_read_back_the_defaults(generated, native, tmp_path):
    b = _Builder(generated)
    sends = [(t, b.required(t)) for t in native.Recorder.records()]
    got = _record_run(native, tmp_path, sends, step=7)
    assert [g[0] for g in got] == [t for t, _ in sends]
    for (table, record), (_, kind, s0, s1, body) in zip(sends, got):
        want = _expected(generated, table, record)
        defaults = generated.DEFAULTS[table]
        for field in generated.FIELDS[table]:
            if field in record:
                continue
            if field == "step" and generated.TYPES[table][field] == "int":
                want[field] = 7  # the recorder's current step
            elif field in defaults and field in body:
                want[field] = defaults[field]
        _same(body, want, table)
    assert not [t for t, r in sends if set(r) - set(generated.REQUIRED[t])]


def test_a_left_out_step_is_the_recorders_current_step(generated, native, tmp_path):
    stepped = [t for t in native.Recorder.records() if generated.TYPES[t].get("step") == "int"]
    assert {"LossRecord", "OptimizerStepRecord", "SampleBatch", "GradClipRecord"} <= set(stepped)
    got = _record_run(native, tmp_path, [(t, {}) for t in stepped], step=7)
    assert [(g[0], g[2], g[3], g[4].get("step")) for g in got] == [(t, 7, 7, 7) for t in stepped]


def test_add_loss_and_the_other_named_methods_are_add_record(generated, native, tmp_path):
    b = _Builder(generated)
    loss, step = b.record("LossRecord"), b.record("OptimizerStepRecord")
    samples, insights = b.record("SampleBatch"), b.record("InsightBatch")
    path = str(tmp_path / "named.tvis")
    rec = native.Recorder(path, {"project_dir": str(tmp_path)})
    rec.add_loss(loss)
    rec.add_optimizer_step(step)
    rec.add_samples(samples)
    rec.add_insights(insights)
    rec.finalize({})
    f = native.RunFile(path)
    kinds = [k for _, k, *_ in f.chunks() if k in ("loss", "optimizer_step", "samples", "insights")]
    assert kinds == ["loss", "optimizer_step", "samples", "insights"]
    steps = [(s0, s1) for _, k, s0, s1, *_ in f.chunks() if k == "insights"]
    covered = [r["step"] for key in ("attention", "gradcam", "embeddings") for r in insights[key]]
    assert steps == [(min(covered), max(covered))]  # an insight batch's range: its records' steps


def test_run_meta_and_run_config_convert_every_field_they_take(generated, native, tmp_path):
    b = _Builder(generated)
    config = b.record("RunConfig")
    meta = b.record("RunMeta")
    own = ("kind", "phase_timings", "step_device_reads", "config")
    for key in own:
        with pytest.raises(ValueError, match=r"RunMeta record has no key '%s' \(its keys: script, " % key):
            native.Recorder(str(tmp_path / ("own_%s.tvis" % key)), {}).finalize({key: meta[key]})
    meta = {k: v for k, v in meta.items() if k not in own}
    path = str(tmp_path / "meta.tvis")
    rec = native.Recorder(path, config)
    rec.finalize(meta)
    f = native.RunFile(path)
    last = [o for o, k, *_ in f.chunks() if k == "run_meta"][-1]
    body = _json(f.chunk_json(last))["body"]
    _same({k: body[k] for k in meta}, _as_read(generated, "RunMeta", meta), "RunMeta")
    _same(body["config"], _as_read(generated, "RunConfig", config), "RunMeta.config")
    assert body.get("kind", "Training") == "Training"  # the default: packed as absent


@pytest.fixture
def rec(native, tmp_path):
    return native.Recorder(str(tmp_path / "bad.tvis"), {"project_dir": str(tmp_path)})


def test_an_unknown_key_is_refused_naming_it_and_the_tables_keys(generated, rec):
    keys = ", ".join(generated.FIELDS["GradClipRecord"])
    with pytest.raises(ValueError, match=r"^tvis: GradClipRecord record has no key 'max_nrom' \(its keys: %s\)$" % keys):
        rec.add_record("GradClipRecord", {"step": 1, "max_nrom": 1.0})
    with pytest.raises(ValueError, match=r"tvis: SampleLoss record has no key 'row'"):  # a sub-table's keys too
        rec.add_loss({"samples": [{"row": 1}]})
    with pytest.raises(ValueError, match=r"tvis: LossRecord record has a key that is not a string"):
        rec.add_loss({1: 2})


def test_a_value_of_the_wrong_type_is_refused_naming_the_field(rec):
    with pytest.raises(TypeError, match=r"^tvis: GradClipRecord.max_norm takes a float, not str \('1.0'\)$"):
        rec.add_record("GradClipRecord", {"max_norm": "1.0"})
    with pytest.raises(TypeError, match=r"tvis: LossRecord.step takes an int \(int32\), not float"):
        rec.add_loss({"step": 1.5})
    with pytest.raises(TypeError, match=r"tvis: LossRecord.step takes an int \(int32\), not int \(4294967296\)"):
        rec.add_loss({"step": 2 ** 32})
    with pytest.raises(TypeError, match=r"tvis: LossRecord.event takes an int \(uint64\), not int \(-1\)"):
        rec.add_loss({"event": -1})
    with pytest.raises(TypeError, match=r"tvis: LossRecord.call takes a str, not int"):
        rec.add_loss({"call": 3})
    with pytest.raises(TypeError, match=r"tvis: AttentionRecord.shape takes a list, not str"):
        rec.add_insights({"attention": [{"shape": "1x2"}]})
    with pytest.raises(TypeError, match=r"tvis: LossRecord.tokens takes a record \(a dict of its fields, or a tuple "
                                        r"of them in order\), not int \(5\)"):
        rec.add_loss({"tokens": 5})
    with pytest.raises(TypeError, match=r"tvis: a GradClipRecord record is a dict of its fields .*not str"):
        rec.add_record("GradClipRecord", "step=1")
    with pytest.raises(ValueError, match=r"tvis: KeyValue record has 2 fields \(key, value\); got 3 values"):
        rec.add_loss({"args": [("a", "b", "c")]})


def test_an_enum_number_no_member_has_is_refused_listing_the_members(rec):
    with pytest.raises(ValueError, match=r"^tvis: GradCamRecord.target takes a CamTarget number "
                                         r"\(0 Predicted, 1 True\), not 7$"):
        rec.add_insights({"gradcam": [{"target": 7}]})
    with pytest.raises(ValueError, match=r"tvis: TransformStep.input_kind takes a ValueKind number"):
        rec.add_samples({"samples": [{"transforms": [{"input_kind": -1}]}]})


def test_an_unknown_or_recorder_owned_table_name_is_refused_listing_the_names(native, rec):
    names = ", ".join(native.Recorder.records())
    with pytest.raises(ValueError, match=r"^tvis: add_record takes a record of %s; not 'LossRecords'$" % names):
        rec.add_record("LossRecords", {})
    with pytest.raises(ValueError, match=r"not 'TensorBatch' \(the recorder writes those chunks itself\)"):
        rec.add_record("TensorBatch", {})
    with pytest.raises(ValueError, match=r"not 'Chunk'"):
        rec.add_record("Chunk", {})
