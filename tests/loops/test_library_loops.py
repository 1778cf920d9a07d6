"""The training loops that libraries run, unmodified (scripts/): the Hugging
Face Trainer, Lightning (automatic and manual optimization), accelerate,
timm models with torchvision v2 transforms, AMP with a GradScaler that skips
a step, torch.compile and gradient accumulation by hand.

Each script runs plainly and under `tvis run` (same seed, one process): the
printed losses and weight digests after every step must be equal bit for
bit. The run must name the modules by their real paths (no `module.` or
`_orig_mod.` added by a wrapper), hold one optimizer step per step with every
micro-batch's forward, loss and backward inside it, and its phases must read
data, forward, loss, backward, optimizer. Each test prints the library
version it ran (`library NAME VERSION torch VERSION`, the script's first line).
"""
import re

import pytest

from recorder_conftest import SCRIPTS as _RECORDER_SCRIPTS  # noqa: F401  (the recorder's scripts stay theirs)
from recorder_conftest import inspect_json, load_run, record_matching_plain
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent / "scripts"
STEPS = 3


def library_line(stdout):
    lines = [l for l in stdout.splitlines() if l.startswith("library ")]
    assert lines, "the script names no library version"
    print(lines[0])  # pytest -rA / the log: which version ran
    return lines[0]


def record(tvis, tmp_path, script, *args, failures_expected=()):
    """Plain and recorded runs with equal step lines; the run, inspect's JSON and the step lines."""
    path, out, plain = record_matching_plain(tvis, SCRIPTS / script, STEPS, tmp_path / "runs", "--out",
                                             tmp_path / "lib_out", *args, failures_expected=failures_expected) \
        if script.startswith("hf_") else \
        record_matching_plain(tvis, SCRIPTS / script, STEPS, tmp_path / "runs", *args,
                              failures_expected=failures_expected)
    library_line(plain)
    info = inspect_json(tvis, path)
    assert info["steps"] == STEPS, info
    assert not [m for m in info["modules"] if m.startswith(("module.", "_orig_mod.")) or "._orig_mod" in m], \
        info["modules"]
    return load_run(path), info, out


def events_of(run, step, kind=None):
    return [e for e in sorted(run.events.values(), key=lambda e: e["id"])
            if e["step"] == step and (kind is None or e["kind"] == kind)]


_MICRO_BATCH = re.compile(r"^((Data )?Forward Loss Backward )+Optimizer $")


def assert_phase_order(run, step):
    """The phases of a step, as its timeline (PhaseBegin events) reads them: one or more micro-batches of
    data, forward, loss (also where the model computes it at the end of its own forward), backward;
    then the optimizer. Each micro-batch has its loss."""
    phases = [e["phase"] for e in events_of(run, step, "PhaseBegin") if e["phase"] not in ("None", "Evaluation")]
    assert _MICRO_BATCH.match("".join(p + " " for p in phases)), phases
    assert len(events_of(run, step, "LossCall")) >= phases.count("Backward"), "a micro-batch without its loss"


def optimizer_steps(run, step):
    return [s for s in run.optimizer_steps if s["step"] == step]


def assert_clipped_once_a_step(run, max_norm, script, via_norm=False):
    """The library's gradient clipping, once per optimizer step (after the
    accumulated micro-batches), recorded with its limit, a finite norm and
    the script's line that led to it. ``via_norm``: clipped through
    clip_grads_with_norm_ (accelerate), whose norm type is not known."""
    clips = run.records.get("grad_clip", [])
    assert [c["step"] for c in clips] == list(range(STEPS)), clips
    for c in clips:
        assert c["max_norm"] == max_norm and c["parameters"] > 0, c
        assert (c["norm_type"] != c["norm_type"]) if via_norm else c["norm_type"] == 2.0, c
        assert 0 < c["total_norm"] < float("inf"), c
        assert c["call_site"].startswith(script + ":"), c


def test_hf_trainer_gpt2_gradient_accumulation(tvis, tmp_path):
    run, info, _ = record(tvis, tmp_path, "hf_gpt2_trainer.py")
    assert {"transformer.h.0.attn", "transformer.h.1.mlp", "lm_head"} <= set(info["modules"]), info["modules"]
    for step in range(STEPS):
        assert len(optimizer_steps(run, step)) == 1
        assert len(events_of(run, step, "BackwardCall")) == 4  # gradient_accumulation_steps=4
        assert len(info["step_losses"][step]) == 4
        roots = [e for e in events_of(run, step, "ModuleCall") if e["class_name"] == "GPT2LMHeadModel"
                 and e["phase"] == "Forward"]
        assert len(roots) == 4
        assert_phase_order(run, step)
    assert_clipped_once_a_step(run, 1.0, "hf_gpt2_trainer.py", via_norm=True)  # max_grad_norm's default


def test_hf_trainer_bert_classifier(tvis, tmp_path):
    run, info, _ = record(tvis, tmp_path, "hf_bert_classifier.py")
    assert {"bert.encoder.layer.0.attention.self", "classifier"} <= set(info["modules"]), info["modules"]
    for step in range(STEPS):
        assert len(optimizer_steps(run, step)) == 1
        assert_phase_order(run, step)


def test_lightning_automatic_optimization(tvis, tmp_path):
    run, info, _ = record(tvis, tmp_path, "lightning_auto.py")
    assert {"features.0", "head"} <= set(info["modules"]), info["modules"]
    for step in range(STEPS):
        (opt,) = optimizer_steps(run, step)
        # the closure's backward ran inside optimizer.step(closure): its gradients are the step's
        assert all(p["grad"] >= 0 for p in opt["params"]), opt["params"]
        assert all(p["update"] >= 0 for p in opt["params"])
        assert len(events_of(run, step, "BackwardCall")) == 1
        assert_phase_order(run, step)
    assert_clipped_once_a_step(run, 0.5, "lightning_auto.py")  # gradient_clip_val


def test_lightning_manual_optimization(tvis, tmp_path):
    run, info, _ = record(tvis, tmp_path, "lightning_manual.py")
    assert {"net.1", "net.3"} <= set(info["modules"]), info["modules"]
    for step in range(STEPS):
        assert len(optimizer_steps(run, step)) == 1
        assert_phase_order(run, step)


def test_accelerate_with_accumulation(tvis, tmp_path):
    run, info, _ = record(tvis, tmp_path, "accelerate_loop.py")
    assert {"0", "1", "5"} <= set(info["modules"]), info["modules"]
    for step in range(STEPS):
        assert len(optimizer_steps(run, step)) == 1
        assert len(events_of(run, step, "BackwardCall")) == 2  # gradient_accumulation_steps=2
        assert_phase_order(run, step)


@pytest.mark.parametrize("model,expected", [("resnet18", {"conv1", "layer1.0.conv1", "fc"}),
                                            ("vit", {"patch_embed.proj", "blocks.0.attn", "head"})])
def test_timm_models_with_v2_transforms(tvis, tmp_path, model, expected):
    run, info, _ = record(tvis, tmp_path, "timm_models.py", "--model", model)
    assert expected <= set(info["modules"]), info["modules"]
    assert any("RandomCrop" in t for t in info["captured"]["pipeline"]["transforms"]), info["captured"]
    for step in range(STEPS):
        assert_phase_order(run, step)


def test_amp_grad_scaler_skipped_step(tvis, tmp_path):
    run, info, out = record(tvis, tmp_path, "amp_scaler.py")
    steps = sorted(run.optimizer_steps, key=lambda s: s["step"])
    assert [s["step"] for s in steps] == [0, 1, 2]
    assert steps[0]["skipped"] is True and all(p["update"] == -1 for p in steps[0]["params"])
    assert all(s["skipped"] is False for s in steps[1:])
    assert all(all(p["update"] >= 0 for p in s["params"]) for s in steps[1:])
    assert steps[0]["grad_scale"] == 2.0 ** 127
    assert steps[1]["grad_scale"] == 2.0 ** 17 and steps[2]["grad_scale"] == 2.0 ** 17
    assert any("GradScaler skipped" in n for n in info["notices"]), info["notices"]


def test_gradient_accumulation_by_hand(tvis, tmp_path):
    run, info, _ = record(tvis, tmp_path, "accumulate_by_hand.py")
    for step in range(STEPS):
        assert len(optimizer_steps(run, step)) == 1
        assert len(events_of(run, step, "BackwardCall")) == 4
        assert len(info["step_losses"][step]) == 4
        assert_phase_order(run, step)


def test_torch_compile(tvis, tmp_path):
    run, info, _ = record(tvis, tmp_path, "compiled_model.py")
    assert {"0", "4"} <= set(info["modules"]), info["modules"]
    assert any("torch.compile" in n for n in info["notices"]), info["notices"]
