"""Followed samples of a script that slices its own batches (no DataLoader):
each step follows the first --samples rows of the model's batched input, and
each sample's recorded input is that row of the recorded model input."""
import json

import torch

from conftest import SCRIPTS, inspect_json, load_run, run_file_of, run_tvis


def _sample_batches(run):
    out = []
    for ordinal, kind, *_ in run.chunks:
        if kind == "samples":
            out.append(json.loads(run.file.chunk_json(ordinal))["body"])
    return out


def test_batches_without_a_dataloader_follow_the_model_inputs_rows(tvis, tmp_path):
    p = run_tvis(tvis, SCRIPTS / "golden_tiny.py", steps=2, out=tmp_path, opts=["--samples", "3"])
    assert p.returncode == 0, p.stderr
    path = run_file_of(p.stdout)
    assert inspect_json(tvis, path)["captured"]["samples"] == [0, 1, 2]
    run = load_run(path)
    batches = _sample_batches(run)
    assert [b.get("step", 0) for b in batches] == [0, 1]
    for b in batches:
        call = run.events[b.get("batch_event", 0)]
        assert call["kind"] == "ModuleCall" and call["name"] == "Tiny"
        model_input = run.values(call["inputs"][0])
        assert [s.get("batch_position", -1) for s in b["samples"]] == [0, 1, 2]
        for s in b["samples"]:
            row = run.values(s["input"])
            assert torch.equal(row, model_input[s["batch_position"]])
