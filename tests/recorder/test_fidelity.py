"""Recording never changes training, and the recording is really there.

For each script: `python script` and `tvis run --steps 3 script` print
bit-identical losses and weight digests for the recorded steps; the run holds
module calls with dL/d(output), and for every parameter of every step the
weight before and after, the gradient and the update, whose values equal bit
for bit what the script's own weight dumps give (p_after - p_before); the
weights after a step are stored as XOR deltas against the boundary before and
still read back bit for bit.
"""
import json
import os
import subprocess

import pytest
import torch

from conftest import NATIVE_PY, PYTHON, SCRIPTS, inspect_json, load_run, run_file_of, run_plain, run_tvis, step_lines

CASES = {
    "cnn_dropout": {"modules": {"conv1", "conv2", "drop", "fc"}, "optimizer": "SGD"},
    "resnet18": {"modules": {"conv1", "bn1", "relu", "layer1.0.conv2", "layer4.1.bn2", "fc"}, "optimizer": "SGD"},
    "lm_adamw": {"modules": {"emb", "attn.qkv", "attn.drop", "mlp.1", "head"}, "optimizer": "AdamW"},
    "manual_sgd": {"modules": {"0", "1", "2", "3"}, "optimizer": ""},
}


def _leading(t, like):
    """``t`` cut to the rows kept of it (a LeadingRows tensor keeps the first rows)."""
    return t[: like.shape[0]] if t.dim() and like.shape != t.shape else t


def update_values(run, p):
    """Δw of parameter record `p`: its stored values where the update record
    kept them, else the weight after minus the weight before (the run stores
    weights once per step boundary), computed in the parameter's dtype; None
    when neither is there."""
    u = run.values(p["update"])
    if u is not None:
        return u
    if p.get("after", -1) < 0:
        return None
    w, a = run.values(p["weight"]), run.values(p["after"])
    if w is None or a is None:
        return None
    rows = min(w.shape[0], a.shape[0]) if w.dim() else None
    return (a[:rows] - w[:rows]) if rows is not None else a - w


def _check_updates(run, dump_dir, steps, plain_dump_dir):
    """Every parameter of every step: the weight before, the weight after and
    the update equal the recorded script's own dumps (p_after - p_before, bit
    for bit; the update record's statistics are those of that exact Δw), and
    the gradient equals the .grad of the same step in the plain run (a
    process without tvis), bit for bit. The weight after step k is step k+1's
    weight before: one record."""
    weights = [torch.load(dump_dir / "w_init.pt")] + [torch.load(dump_dir / ("w_step%d.pt" % k)) for k in range(steps)]
    plain_grads = [torch.load(plain_dump_dir / ("g_step%d.pt" % k)) for k in range(steps)]
    assert len(run.optimizer_steps) == steps
    afters = {}
    for rec in sorted(run.optimizer_steps, key=lambda r: r["step"]):
        k = rec["step"]
        names = {p["name"] for p in rec["params"]}
        assert names == set(weights[0]), "step %d: params recorded %s" % (k, sorted(names ^ set(weights[0])))
        for p in rec["params"]:
            before, after = weights[k][p["name"]], weights[k + 1][p["name"]]
            assert p["grad"] >= 0 and p["update"] >= 0 and p["after"] >= 0, p
            if k > 0:
                assert p["weight"] == afters[p["name"]], "step %d stored %s's weight again" % (k, p["name"])
            afters[p["name"]] = p["after"]
            w = run.values(p["weight"])
            assert torch.equal(w, _leading(before, w)), "weight before of %s at step %d" % (p["name"], k)
            a = run.values(p["after"])
            assert torch.equal(a, _leading(after, a)), "weight after of %s at step %d" % (p["name"], k)
            u = update_values(run, p)
            delta = after - before
            assert torch.equal(u, _leading(delta, u)), "update of %s at step %d differs from p_after - p_before" \
                % (p["name"], k)
            st = run.tensors[p["update"]]["stats"]
            # the run's JSON prints statistics with 9 significant digits
            assert st["min"] == pytest.approx(delta.min().item(), rel=1e-8, abs=1e-30) and \
                st["max"] == pytest.approx(delta.max().item(), rel=1e-8, abs=1e-30), (p["name"], k, st)
            g = run.values(p["grad"])
            assert g is not None, "no gradient kept for %s at step %d" % (p["name"], k)
            assert torch.equal(g, _leading(plain_grads[k][p["name"]], g)), \
                "gradient of %s at step %d differs from the plain run's" % (p["name"], k)


def test_boundary_weights_give_the_stored_updates_bit_for_bit(tvis, tmp_path):
    """Δw computed from the weights stored once per step boundary equals, bit
    for bit, the Δw the recorder stores when asked to keep update values (the
    layout before boundaries: TVIS_UPDATE_VALUES=1), on the same script."""
    script = SCRIPTS / "lm_adamw.py"
    runs = {}
    for key, env in (("boundary", {}), ("stored", {"TVIS_UPDATE_VALUES": "1"})):
        p = subprocess.run([tvis, "run", "--steps", "3", "--out", str(tmp_path / key), str(script), "--steps", "5"],
                           capture_output=True, text=True, timeout=600, env=dict(os.environ, **env))
        assert p.returncode == 0, p.stderr
        runs[key] = load_run(run_file_of(p.stdout))
    stored = {(r["step"], p["name"]): p for r in runs["stored"].optimizer_steps for p in r["params"]}
    compared = 0
    for r in runs["boundary"].optimizer_steps:
        for p in r["params"]:
            assert runs["boundary"].tensors[p["update"]]["kept"] == "None"
            q = stored[(r["step"], p["name"])]
            kept = runs["stored"].values(q["update"])
            assert kept is not None
            assert torch.equal(update_values(runs["boundary"], p), kept), (r["step"], p["name"])
            compared += 1
    assert compared == 3 * len(runs["boundary"].optimizer_steps[0]["params"])


def test_spilled_weights_before_give_the_same_updates(tvis, tmp_path):
    """A large model keeps its weights before each optimizer step in a file
    beside the run (TVIS_SNAPSHOT_SPILL_BYTES; forced here with 0 on
    ResNet-18, whose layer3/layer4 convolutions have 2^19 elements or more):
    training stays bit for bit the plain run's, and every record equals the
    in-memory recording's: Δw statistics (min, max, counts exactly; the sums
    and histogram too where torch runs several threads, whose pieces the
    spilled path sums in the same order) and the boundary weights' values."""
    script = SCRIPTS / "resnet18.py"
    plain = run_plain(script, "--steps", 2)
    assert plain.returncode == 0, plain.stderr
    runs = {}
    spilled_bytes = {}
    for key, spill in (("memory", str(1 << 62)), ("spilled", "0")):
        stats_file = tmp_path / ("stats_%s.json" % key)
        p = subprocess.run([tvis, "run", "--steps", "2", "--out", str(tmp_path / key), str(script), "--steps", "4"],
                           capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, TVIS_SNAPSHOT_SPILL_BYTES=spill, TVIS_STATS_FILE=str(stats_file)))
        assert p.returncode == 0, p.stderr
        assert step_lines(p.stdout) == step_lines(plain.stdout), "training differs under tvis run (%s)" % key
        runs[key] = load_run(run_file_of(p.stdout))
        stats = json.load(open(stats_file))
        assert stats["spill_error"] == "", stats["spill_error"]
        spilled_bytes[key] = stats["peak_spilled_bytes"]
    # layer3/layer4's convolutions of 2^19 elements or more, 4 bytes each, went to the file; nothing in memory's run
    assert spilled_bytes["memory"] == 0 and spilled_bytes["spilled"] > 16 << 20, spilled_bytes
    memory, spilled = runs["memory"], runs["spilled"]
    assert memory.tensors.keys() == spilled.tensors.keys()
    exact_sums = torch.get_num_threads() > 1
    big_updates = 0
    for tid, a in memory.tensors.items():
        b = spilled.tensors[tid]
        assert (a["role"], a.get("name"), a["shape"], a["kept"]) == (b["role"], b.get("name"), b["shape"], b["kept"])
        sa, sb = a["stats"], b["stats"]
        for key in ("count", "nan_count", "inf_count", "min", "max"):
            assert sa.get(key) == sb.get(key), (tid, a.get("name"), key)
        for key in ("mean", "std", "mean_abs", "l2"):  # a zero is left out of the JSON
            x, y = sa.get(key, 0.0), sb.get(key, 0.0)
            assert x == y if exact_sums else abs(x - y) <= 1e-12 * max(1.0, abs(x)), (tid, a.get("name"), key, x, y)
        if exact_sums:
            assert sa.get("histogram") == sb.get("histogram"), (tid, a.get("name"))
        if a["role"] == "Weight" and a["kept"] != "None":
            assert torch.equal(memory.values(tid), spilled.values(tid)), (tid, a.get("name"))
        numel = 1
        for d in a["shape"]:
            numel *= d
        big_updates += a["role"] == "Update" and numel >= 1 << 19
    assert big_updates >= 2 * 5, "fewer parameters of 2^19 elements or more were updated than ResNet-18 has"


@pytest.mark.parametrize("name", sorted(CASES))
def test_across_processes(name, tvis, tmp_path):
    script = SCRIPTS / (name + ".py")
    plain_dump = tmp_path / "plain_dump"
    plain = run_plain(script, "--steps", 3, "--dump", plain_dump)
    assert plain.returncode == 0, plain.stderr
    dump = tmp_path / "dump"
    rec = run_tvis(tvis, script, "--steps", 6, "--dump", dump, steps=3, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout), "losses/weights differ under tvis run"
    assert len(step_lines(rec.stdout)) == 3, "the script was not stopped after 3 steps"
    lines = rec.stdout.strip().splitlines()
    assert lines[-2] == "tvis run: recorded " + run_file_of(rec.stdout)
    assert lines[-1] == "tvis open " + str((tmp_path / "runs").resolve())
    path = run_file_of(rec.stdout)
    run = load_run(path)
    assert run.complete and run.meta["complete"] and run.meta["steps_recorded"] == 3
    assert run.meta.get("optimizer_class", "") == CASES[name]["optimizer"]
    mods = run.module_events()
    names = {e["name"] for e in mods}
    assert CASES[name]["modules"] <= names, sorted(names)
    with_grads = [e for e in mods if e["grad_outputs"]]
    assert len(with_grads) >= len(mods) // 3, "few module calls have dL/d(output)"
    assert all(e["grad_norm"] >= 0 for e in with_grads)
    assert {e["step"] for e in mods} >= {0, 1, 2}
    _check_updates(run, dump, 3, plain_dump)
    # ...and the weights after steps 0, 1 and 2, checked bit for bit above, were
    # read back through XOR delta chunks (run_builder.h): stored against the
    # boundary before, undone by the reader (step 0's too: a weight keeps its
    # own bytes, so every boundary's chunks line up).
    delta = {c[0] for c in run.chunks if c[1] == "tensor_data" and c[7] == 1}
    later = [p["after"] for r in run.optimizer_steps if r["step"] >= 0 for p in r["params"]
             if run.tensors[p["after"]]["data_size"] > 0]
    assert later and all(run.tensors[t]["data_chunk"] in delta for t in later), \
        "weights after steps 0-2 not stored as XOR deltas: chunks %s" % sorted(delta)
    info = inspect_json(tvis, path)
    assert info["complete"] is True and info["steps"] == 3
    plain_losses = [float(l.split()[3]) for l in step_lines(plain.stdout)]
    assert info["losses"] == plain_losses


@pytest.mark.parametrize("name", sorted(CASES))
def test_in_process(name, build, tmp_path):
    script = SCRIPTS / (name + ".py")
    env_path = "%s:%s" % (NATIVE_PY, SCRIPTS.parents[2] / "recorder" / "python")
    p = subprocess.run([PYTHON, str(SCRIPTS / "inprocess_harness.py"), str(tmp_path / "run.tvis"), str(script),
                        "--steps", "3"], capture_output=True, text=True, timeout=600,
                       env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert len(step_lines("\n".join(out["plain"]))) == 3
    assert out["recorded"] == out["plain"]
    assert out["steps"] == 3
    run = load_run(tmp_path / "run.tvis")
    assert run.complete and len(run.optimizer_steps) == 3


def test_raw_tensors_hand_written_update(tvis, tmp_path):
    """Without modules or torch.optim: the leaves backward reached are the
    parameters (named by the script's variables); a step ends at the next
    data fetch or forward, which here is the next loss call."""
    script = SCRIPTS / "manual_raw.py"
    plain_dump = tmp_path / "plain_dump"
    plain = run_plain(script, "--steps", 3, "--dump", plain_dump)
    assert plain.returncode == 0, plain.stderr
    dump = tmp_path / "dump"
    rec = run_tvis(tvis, script, "--steps", 6, "--dump", dump, steps=3, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    assert len(step_lines(plain.stdout)) == 3 and all(" weights " in l for l in step_lines(plain.stdout))
    assert step_lines(rec.stdout) == step_lines(plain.stdout)
    run = load_run(run_file_of(rec.stdout))
    assert len(run.optimizer_steps) == 3
    _check_updates(run, dump, 3, plain_dump)
