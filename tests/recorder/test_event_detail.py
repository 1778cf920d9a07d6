"""An event's detail, typed (schema/recording.fbs EventDetail): the probes
build it with tvis.records.event_detail (keyword-only: a misspelt key fails
where it is built), Recorder.add_detail checks it through the generated
conversion of EventDetail (an unknown key or a wrong type is refused naming
EventDetail and the field) and writes each given field into the run file as
the KeyValue text runs have always held: a bool "1"/"0", an integer in
decimal digits, a float text that reads back the same value, a string as it
is. Every field of the table is written, whatever the schema adds."""
import math

import pytest

from tvis import records as R
from tvis.schema import MODULE_CALL


def _written(native, tmp_path, details):
    """Each detail added to its own event of a real run file, read back as [(key, text)]."""
    from tvis._read import _json
    path = str(tmp_path / "run.tvis")
    rec = native.Recorder(path, {"project_dir": str(tmp_path)})
    ids = []
    for d in details:
        eid = rec.begin(MODULE_CALL, "m", "M", 0, 0, 0, 0)
        rec.add_detail(eid, d)
        rec.end(eid)
        ids.append(eid)
    rec.finalize({})
    f = native.RunFile(path)
    events = {}
    for ordinal, kind, *_ in f.chunks():
        if kind == "events":
            for e in _json(f.chunk_json(ordinal))["body"]["events"]:
                events[e.get("id", 0)] = [(kv["key"], kv.get("value", "")) for kv in e.get("detail", [])]  # "" packs as none
    return [events[i] for i in ids]


def test_every_field_is_written_as_its_text(generated, native, tmp_path):
    types = generated.TYPES["EventDetail"]
    sample = {"bool": (True, "1"), "long": (-(2 ** 40), str(-(2 ** 40))), "double": (0.1, "0.1"),
              "string": ("layer1.0.weight head.bias", "layer1.0.weight head.bias")}
    assert set(types.values()) <= set(sample)  # the types the text and analysis/ know
    details = [R.event_detail(**{field: sample[t][0]}) for field, t in types.items()]
    got = _written(native, tmp_path, details)
    assert got == [[(field, sample[t][1])] for field, t in types.items()]


def test_the_probes_text_is_unchanged(native, tmp_path):
    got = _written(native, tmp_path, [
        R.event_detail(model_training=True, training=False),
        R.event_detail(dead_units=3, units=6, unit_samples=72),
        R.event_detail(grads_checked=4, grads_carried=1, grads_carried_norm=float("%.6g" % 1234.56789),
                       grads_carried_param="fc.weight"),
        R.event_detail(grads_carried_norm=float("%.6g" % 0.000123456789)),
        R.event_detail(grads_carried_norm=float("nan")),
        R.event_detail(raised=True, ignore_index=-100),
        R.event_detail(sample=0, dataset_index=-1, units=None),  # None: left out
        R.event_detail(keyword_inputs=""),
    ])
    assert got == [
        [("model_training", "1"), ("training", "0")],
        [("dead_units", "3"), ("units", "6"), ("unit_samples", "72")],
        [("grads_checked", "4"), ("grads_carried", "1"), ("grads_carried_norm", "1234.57"),
         ("grads_carried_param", "fc.weight")],
        [("grads_carried_norm", "0.000123457")],
        [("grads_carried_norm", "nan")],
        [("raised", "1"), ("ignore_index", "-100")],
        [("sample", "0"), ("dataset_index", "-1")],
        [("keyword_inputs", "")],
    ]
    assert math.isnan(float(got[4][0][1]))


def test_a_misspelt_key_fails_where_the_detail_is_built():
    with pytest.raises(TypeError, match="dead_unit"):
        R.event_detail(dead_unit=3)
    with pytest.raises(TypeError, match="positional"):
        R.event_detail(3)


@pytest.fixture
def rec(native, tmp_path):
    return native.Recorder(str(tmp_path / "bad.tvis"), {"project_dir": str(tmp_path)})


def test_add_detail_refuses_an_unknown_key_naming_it(rec):
    eid = rec.begin(MODULE_CALL, "m", "M", 0, 0, 0, 0)
    with pytest.raises(ValueError, match=r"^tvis: EventDetail record has no key 'dead_unit' \(its keys: model_training, "):
        rec.add_detail(eid, {"dead_unit": 3})


def test_add_detail_refuses_a_wrong_type_naming_the_field(rec):
    eid = rec.begin(MODULE_CALL, "m", "M", 0, 0, 0, 0)
    with pytest.raises(TypeError, match=r"^tvis: EventDetail.units takes an int \(int64\), not str \('3'\)$"):
        rec.add_detail(eid, R.event_detail(units="3"))
    with pytest.raises(TypeError, match=r"^tvis: EventDetail.grads_carried_norm takes a float, not str"):
        rec.add_detail(eid, R.event_detail(grads_carried_norm="1.5"))
    with pytest.raises(TypeError, match=r"^tvis: EventDetail.dead_units takes an int \(int64\), not float"):
        rec.add_detail(eid, R.event_detail(dead_units=1.0))
    with pytest.raises(TypeError, match=r"^tvis: EventDetail.rng takes a str, not int"):
        rec.add_detail(eid, R.event_detail(rng=3))


def test_add_detail_takes_a_dict_only(rec):
    eid = rec.begin(MODULE_CALL, "m", "M", 0, 0, 0, 0)
    with pytest.raises(TypeError, match=r"^tvis: Recorder.add_detail takes a dict of EventDetail fields .*not list$"):
        rec.add_detail(eid, [("units", 3)])
