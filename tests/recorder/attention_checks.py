"""Shared by the rebuilt-attention tests (tests/recorder/test_attention_rebuilt.py
and tests/loops/test_attention_libraries.py): record a script that dumps its
parameters, then compare every attention record with the script's own eager
reference on the weights that step's forward saw.

Tolerance: 2e-6 absolute (float32 softmax over at most 17 keys; the fused
kernels and the eager path sum in different orders)."""
import importlib.util
import sys

import torch

try:  # tests/loops loads tests/recorder/conftest.py under this name
    from recorder_conftest import inspect_json, load_run, run_file_of, run_plain, run_tvis, step_lines
except ImportError:
    from conftest import inspect_json, load_run, run_file_of, run_plain, run_tvis, step_lines
from insight_records import assert_tensor_roles, insights

STEPS = 2
TOL = 2e-6


def load_script(path):
    """The script at ``path`` as a module (its folder importable while it loads)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(path.parent))
    return mod


def record(tvis, script, tmp):
    """(run, insight records, inspect --json, dump folder) of ``script --steps
    STEPS --dump`` under tvis run, after asserting it trains as without tvis."""
    plain = run_plain(script, "--steps", STEPS)
    assert plain.returncode == 0, plain.stderr
    dump = tmp / "dump"
    rec = run_tvis(tvis, script, "--steps", STEPS, "--dump", dump, steps=STEPS, out=tmp / "run")
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout), "training differs under tvis run"
    path = run_file_of(rec.stdout)
    run = load_run(path)
    records = insights(run)
    assert_tensor_roles(run, records)
    return run, records, inspect_json(tvis, path), dump


def weights_at(dump, step):
    """The parameters the forward of `step` saw: before training, or after step - 1."""
    return torch.load(dump / ("w_init.pt" if step == 0 else "w_step%d.pt" % (step - 1)))


def compare(run, records, dump, model, make_batch, ref_of):
    """Asserts every attention record equals ``ref_of(model, *make_batch(step))``
    (model loaded with that step's weights) for its module and sample;
    returns {(reference key, source, kind)} seen."""
    refs = {}
    seen = set()
    for a in records["attention"]:
        step = a["step"]
        if step not in refs:
            model.load_state_dict(weights_at(dump, step), strict=False)
            refs[step] = ref_of(model, *make_batch(step))
        module = a["module"]
        key = next((k for k in refs[step] if module == k or module.endswith("." + k)), None)
        assert key is not None, "no reference for %s (have %s)" % (module, sorted(refs[step]))
        expect = refs[step][key][a["sample"]].float()
        got = run.values(a["weights"])
        assert got is not None and list(got.shape) == list(expect.shape), (module, got, expect.shape)
        worst = (got - expect).abs().max().item()
        assert worst <= TOL, "%s step %d sample %d: weights differ by %g" % (module, step, a["sample"], worst)
        seen.add((key, a["source"], a["kind"]))
    return seen


def mask_of(run, a):
    """The record's recorded mask (bool [T', S']), or None."""
    return None if a["mask"] == -1 else run.values(a["mask"])
