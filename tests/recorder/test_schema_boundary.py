"""The recorder's boundary agrees with schema/recording.fbs, with nothing
copied by hand: _tvis_schema.py (generated at build time by schema/gen's
schema_gen from flatc's recording.bfbs) is held against the .fbs text itself
and against flatc's own C++ (recording_generated.h, as _tvis_native's
schema_enums / schema_defaults report it); tvis.schema's constants, the
pipeline's ValueKind, _read.py's defaults and records.py's constructors are
held against the generated module."""
import inspect
import math
import re

import pytest

from conftest import ROOT

FBS = ROOT / "schema" / "recording.fbs"


def _fbs_text():
    text = FBS.read_text(encoding="utf-8")
    return re.sub(r"//[^\n]*", "", text)


def _fbs_enums():
    """Every enum and union of the .fbs, read from its text: {name: {member: value}}."""
    out = {}
    for kind, name, body in re.findall(r"\b(enum|union)\s+(\w+)\s*(?::\s*\w+\s*)?\{([^}]*)\}", _fbs_text()):
        members, value = {}, -1
        if kind == "union":
            members["NONE"] = value = 0
        for item in (i.strip() for i in body.split(",")):
            if not item:
                continue
            m = re.fullmatch(r"(\w+)(?:\s*=\s*(-?\d+))?", item)
            assert m, "cannot read %r in %s" % (item, name)
            value = int(m.group(2)) if m.group(2) is not None else value + 1
            members[m.group(1)] = value
        out[name] = members
    return out


def _fbs_fields():
    """Every table's fields in declaration order, read from the .fbs text."""
    out = {}
    for name, body in re.findall(r"\btable\s+(\w+)\s*\{([^}]*)\}", _fbs_text()):
        fields = []
        for decl in (d.strip() for d in body.split(";")):
            m = re.match(r"(\w+)\s*:\s*([\[\]\w]+)(.*)", decl)
            if m and "deprecated" not in m.group(3):
                fields.append(m.group(1))
        out[name] = tuple(fields)
    return out


def _stale(generated):
    return ("%s differs from %s: a build older than the schema (rebuild _tvis_native), or a generator bug"
            % (generated.__file__, FBS))


def test_generated_enums_are_the_fbs_enums(generated):
    expected = _fbs_enums()
    assert set(generated.ENUMS) == set(expected), _stale(generated)
    for name, members in expected.items():
        assert generated.ENUMS[name] == members, "%s: %s" % (name, _stale(generated))
        assert list(generated.ENUMS[name]) == list(members), "%s: order" % name


def test_generated_fields_are_the_fbs_fields(generated):
    expected = _fbs_fields()
    assert set(generated.FIELDS) == set(expected), _stale(generated)
    for table, fields in expected.items():
        assert generated.FIELDS[table] == fields, "%s: %s" % (table, _stale(generated))


def test_generated_enums_are_what_the_native_module_was_compiled_with(generated):
    import _tvis_native
    assert _tvis_native.schema_enums() == generated.ENUMS


def test_generated_defaults_are_flatcs_defaults(generated):
    """Every scalar default the generator wrote is the one flatc's object API
    packs (enums by name); strings and vectors read as empty."""
    import _tvis_native
    from tvis._read import _json
    native = {t: _json(text) for t, text in _tvis_native.schema_defaults().items()}
    assert set(native) == set(generated.FIELDS)
    for table, defaults in generated.DEFAULTS.items():
        for field, value in defaults.items():
            if value == [] or value == "":
                assert field not in native[table], (table, field)  # packed as absent: nothing to compare
                continue
            got = native[table][field]
            if isinstance(value, float) and math.isnan(value):
                assert isinstance(got, float) and math.isnan(got), (table, field, got)
            else:
                assert got == value and type(got) is type(value), (table, field, got, value)
        unions = {f + "_type" for f in generated.FIELDS[table]}
        assert set(native[table]) - unions <= set(defaults), table  # no default C++ has and Python lacks
    # a table with a non-trivial default is in both, spelled alike
    assert generated.DEFAULTS["Event"]["parent"] == -1 and generated.DEFAULTS["Event"]["kind"] == "ModuleCall"
    assert math.isnan(generated.DEFAULTS["LossRecord"]["call_value"])


def test_tvis_schema_constants_are_the_generated_numbers(generated):
    from tvis import schema as P
    for enum in P.CONSTANT_ENUMS:
        for member, value in generated.ENUMS[enum].items():
            assert getattr(P, P.constant_name(member)) == value, (enum, member)
    assert (P.NONE, P.FORWARD, P.EVALUATION) == (0, 2, 6)
    assert (P.MODULE_CALL, P.DATASET_GET_ITEM, P.ALL_REDUCE) == (0, 7, 11)
    assert (P.GRAD_CAM, P.LOCAL_GRAD) == (13, 17)


def test_pipeline_value_kinds_are_the_generated_numbers(generated):
    from tvis.captures.pipeline import values
    kinds = generated.ENUMS["ValueKind"]
    assert (values.TENSOR, values.PIL_IMAGE, values.NDARRAY, values.SCALAR, values.OTHER) == (
        kinds["Tensor"], kinds["PILImage"], kinds["NDArray"], kinds["Scalar"], kinds["Other"])


def test_read_fills_the_generated_defaults(generated):
    from tvis import _read
    assert _read._DEFAULTS is generated.DEFAULTS
    a, b = _read._with({}, generated.DEFAULTS["Event"]), _read._with({}, generated.DEFAULTS["Event"])
    a["inputs"].append(1)
    assert b["inputs"] == [] and generated.DEFAULTS["Event"]["inputs"] == []  # no list shared between records


def test_generated_types_and_required_are_the_fbs_ones(generated):
    """TYPES spells each field's type as the .fbs does; REQUIRED is the fields
    the .fbs marks `tvis_required`."""
    types, required = _fbs_types_and_required()
    assert set(generated.TYPES) == set(types), _stale(generated)
    for table, fields in types.items():
        assert generated.TYPES[table] == fields, "%s: %s" % (table, _stale(generated))
        assert generated.REQUIRED[table] == required[table], "%s: %s" % (table, _stale(generated))
    assert generated.REQUIRED["LossRecord"][:2] == ("step", "event") and generated.REQUIRED["Chunk"] == ()


def _fbs_types_and_required():
    types, required = {}, {}
    for name, body in re.findall(r"\btable\s+(\w+)\s*\{([^}]*)\}", _fbs_text()):
        types[name], req = {}, []
        for decl in (d.strip() for d in body.split(";")):
            m = re.match(r"(\w+)\s*:\s*([\[\]\w]+)(.*)", decl)
            if m and "deprecated" not in m.group(3):
                types[name][m.group(1)] = m.group(2)
                if re.search(r"\(\s*tvis_required\s*\)", m.group(3)):
                    req.append(m.group(1))
        required[name] = tuple(req)
    return types, required


def test_record_constructors_are_generated_for_every_table(generated):
    """tvis.records has one constructor per table (snake_case of its name),
    taking exactly the table's fields, keyword-only, the `tvis_required` ones
    without a default; the names the session uses are the same functions."""
    from tvis import records
    _, required = _fbs_types_and_required()
    assert set(records.CONSTRUCTORS) == set(generated.FIELDS)
    for table, fn in records.CONSTRUCTORS.items():
        snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", table).lower()
        assert fn.__name__ == snake and getattr(records, snake) is fn, table
        params = inspect.signature(fn).parameters
        assert tuple(params) == generated.FIELDS[table], table
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values()), table
        assert tuple(n for n, p in params.items() if p.default is inspect.Parameter.empty) == required[table], table
        assert all(p.default is None for p in params.values() if p.default is not inspect.Parameter.empty), table
    for alias, table in (("loss", "LossRecord"), ("optimizer_step", "OptimizerStepRecord"),
                         ("insights", "InsightBatch"), ("attention", "AttentionRecord"), ("gradcam", "GradCamRecord"),
                         ("embedding", "EmbeddingRecord"), ("embedding_table", "EmbeddingTableRecord")):
        assert getattr(records, alias) is records.CONSTRUCTORS[table], alias
    with pytest.raises(TypeError, match="max_nrom"):
        records.grad_clip_record(step=1, max_nrom=1.0)
    with pytest.raises(TypeError, match="samples"):  # a required field left out
        records.loss(step=0, event=0, call="", value=1.0, value_repr="1.0", reduction="mean", args=[])
    assert records.token_layout(batch=1, tokens=2, vocab=3, ignore_index=-100, ignored=[], token_losses=None) == {
        "batch": 1, "tokens": 2, "vocab": 3, "ignore_index": -100, "ignored": []}
