"""Sharded training recorded per rank (docs/run_layout.md "Sharded
parameters"): FSDP2 (`fully_shard`, with and without activation
checkpointing), FSDP1 (`use_orig_params` True and False) and a DTensor
tensor-parallel MLP, each on 2 ranks (gloo, CPU) launched by `tvis run
--nproc-per-node 2` beside the same plain torchrun launch
(scripts/sharded_train.py). For each: every rank's losses and its own
parameters' digest equal the plain launch's, bit for bit; every rank records
every step with no failure notice; the run folder holds run.tvis and
rank1.tvis and no other .tvis; each rank records its part of every
parameter with its placement, and the parts put back by their placements
are the plain launch's full parameters exactly. The FSDP2 run is also opened
in tvis-view (Xvfb): its Weights page assembles the whole weight from the
two rank files, equal to the plain model's parameter, and says which part
each rank holds. torch 2.x only (DTensor, fully_shard): tests/loops runs on
the newest torch alone."""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import torch

from recorder_conftest import (BUILD_DIR, PYTHON, TORCH_TEARDOWN_ABORT, inspect_json, launch_ranks, load_run,
                               rank_lines, torchrun)

SCRIPT = Path(__file__).parent / "scripts" / "sharded_train.py"
STEPS = 2


def launch_recorded(cmd, cwd):
    """Runs the recorded 2-rank launch; once more only when a rank died of the
    exact teardown abort the plain launch also shows (TORCH_TEARDOWN_ABORT's
    first line): any other abort of a recorded rank fails."""
    return launch_ranks(cmd, cwd, attempts=2, signatures=TORCH_TEARDOWN_ABORT[:1])


def plain_and_recorded(tvis, tmp_path, mode):
    """(plain {rank: lines}, its dumps folder, the recorded run folder)."""
    args = ["--mode", mode, "--steps", str(STEPS)]
    plain = launch_ranks(torchrun() + [str(SCRIPT), *args, "--dump", str(tmp_path / "plain")], tmp_path)
    lines = rank_lines(plain.stdout)
    assert sorted(lines) == [0, 1] and all(len(v) == STEPS for v in lines.values()), plain.stdout[-2000:]
    rec = launch_recorded([tvis, "run", "--nproc-per-node", "2", "--steps", str(STEPS), "--out",
                           str(tmp_path / "runs"), str(SCRIPT), *args, "--dump", str(tmp_path / "recorded")], tmp_path)
    assert rank_lines(rec.stdout) == lines, "training differs under tvis run:\n%s" % rec.stdout[-3000:]
    for k in range(STEPS):  # the full parameters the script assembled itself after each step
        a = torch.load(tmp_path / "plain" / ("w_step%d.pt" % k))
        b = torch.load(tmp_path / "recorded" / ("w_step%d.pt" % k))
        assert a.keys() == b.keys() and all(torch.equal(a[n], b[n]) for n in a), k
    files = sorted(set(re.findall(r"tvis run: recorded (\S+)$", rec.stdout, re.M)))
    assert [os.path.basename(f) for f in files] == ["rank1.tvis", "run.tvis"], rec.stdout[-2000:]
    folder = Path(files[0]).parent
    assert sorted(p.name for p in folder.rglob("*.tvis")) == ["rank1.tvis", "run.tvis"]
    return lines, tmp_path / "plain", folder


def check_parts(tvis, folder, dumps, source):
    """Every rank recorded every step and a placement for each parameter; the
    parts of each weight after each step, put back by those placements, are
    the plain launch's full parameter exactly (every element covered)."""
    info = inspect_json(tvis, folder)
    assert [(r["rank"], r["steps"], r["complete"]) for r in info["ranks"]] == [(0, STEPS, True), (1, STEPS, True)]
    runs = [load_run(folder / "run.tvis"), load_run(folder / "rank1.tvis")]
    for rank, run in enumerate(runs):
        bad = [n for n in run.meta.get("notices", []) if n.get("code") in ("recorder_error", "loss_analysis_failed")
               or "stopped after an internal error" in n.get("message", "")]
        assert bad == [], (rank, bad)
    for k in range(STEPS):
        full = torch.load(dumps / ("w_step%d.pt" % k))
        for name, want in full.items():
            whole = torch.zeros(want.numel(), dtype=want.dtype)
            covered = torch.zeros(want.numel(), dtype=torch.bool)
            for rank, run in enumerate(runs):
                shard = {s["name"]: s for s in run.meta.get("param_shards", [])}.get(name)
                assert shard is not None, "rank %d recorded no placement of %s" % (rank, name)
                assert shard["global_shape"] == list(want.shape) and shard.get("source") == source, shard
                assert shard["mesh_shape"] == [2] and shard["mesh_coord"] == [rank], shard
                rec = next(p for o in run.optimizer_steps if o["step"] == k for p in o["params"] if p["name"] == name)
                local_shape = shard.get("local_shape", [])
                part = run.values(rec["after"]) if rec["after"] >= 0 else None
                if part is None:  # nothing of it on this rank (FSDP1's flat ranges)
                    assert torch.Size(local_shape).numel() == 0, (rank, name, shard)
                    continue
                assert list(part.shape) == local_shape, (rank, name, part.shape, shard)
                if shard.get("flat_offset", -1) >= 0:
                    idx = torch.arange(shard["flat_offset"], shard["flat_offset"] + part.numel())
                else:
                    grid = torch.arange(want.numel()).reshape(want.shape)
                    for d, (o, n) in enumerate(zip(shard["offsets"], local_shape)):
                        grid = grid.narrow(d, o, n)
                    idx = grid.reshape(-1)
                whole[idx] = part.reshape(-1)
                covered[idx] = True
            assert bool(covered.all()), (k, name, "elements on no rank")
            assert torch.equal(whole.reshape(want.shape), want), (k, name)
    return runs


def test_fsdp2_two_sharded_blocks_adamw(tvis, tmp_path):
    _, dumps, folder = plain_and_recorded(tvis, tmp_path, "fsdp2")
    runs = check_parts(tvis, folder, dumps, "fully_shard")
    for run in runs:  # the user's paths and class (FSDP2 renames Net to FSDPNet)
        names = {e["name"] for e in run.module_events()}
        assert names == {"Net", "blocks.0", "blocks.0.up", "blocks.0.down", "blocks.1", "blocks.1.up",
                         "blocks.1.down", "head"}, names
    # the ranks read together: parts of a sharded parameter are not replicas that diverged
    d = subprocess.run([tvis, "diagnose", "--json", str(folder)], capture_output=True, text=True, timeout=120)
    assert d.returncode in (0, 1), (d.returncode, d.stderr)
    kinds = [f["kind"] for f in json.loads(d.stdout)["findings"]]
    assert "ranks_diverge" not in kinds, kinds
    check_viewer(folder, dumps, tmp_path)


def test_fsdp2_with_activation_checkpointing(tvis, tmp_path):
    """checkpoint_wrapper recomputes each block's forward inside backward():
    each call is recorded once (in the forward), with the user's paths."""
    _, dumps, folder = plain_and_recorded(tvis, tmp_path, "fsdp2_ckpt")
    runs = check_parts(tvis, folder, dumps, "fully_shard")
    for run in runs:
        calls = [(e["step"], e["name"], e["phase"]) for e in run.module_events()]
        for k in range(STEPS):
            ups = [c for c in calls if c[0] == k and c[1] == "blocks.0.up"]
            assert ups == [(k, "blocks.0.up", "Forward")], ups
        assert not any("_checkpoint_wrapped_module" in c[1] for c in calls), calls


@pytest.mark.parametrize("use_orig_params", [True, False])
def test_fsdp1(tvis, tmp_path, use_orig_params):
    _, dumps, folder = plain_and_recorded(tvis, tmp_path, "fsdp1_orig" if use_orig_params else "fsdp1_flat")
    runs = check_parts(tvis, folder, dumps, "FullyShardedDataParallel")
    for run in runs:
        assert not any("_fsdp_wrapped_module" in e["name"] for e in run.module_events())
        assert not any("_flat_param" in t["name"] for t in run.tensors.values())


def test_dtensor_tensor_parallel_mlp(tvis, tmp_path):
    """ColwiseParallel up (rows split), RowwiseParallel down (columns split)."""
    _, dumps, folder = plain_and_recorded(tvis, tmp_path, "tp")
    runs = check_parts(tvis, folder, dumps, "DTensor")
    shards = {s["name"]: s for s in runs[1].meta["param_shards"]}
    assert shards["up.weight"]["placements"] == "Shard(0)" and shards["up.weight"]["offsets"] == [16, 0]
    assert shards["down.weight"]["placements"] == "Shard(1)" and shards["down.weight"]["offsets"] == [0, 16]
    assert shards["down.bias"]["placements"] == "Replicate()" and shards["down.bias"]["local_shape"] == [16]


def check_viewer(folder, dumps, tmp_path):
    """tvis-view of the run folder (Xvfb): the Weights page's assembled weight
    after step 1 is the plain model's full parameter, and each rank's part is
    named; the screenshot is kept beside the state."""
    view = BUILD_DIR / "bin" / "tvis-view"
    assert view.exists(), view
    state = tmp_path / "weights.json"
    shot = tmp_path / "weights.png"
    p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", str(view), str(folder), "--page", "Weights",
                        "--param", "blocks.0.up.weight", "--step", "1", "--size", "1400x900", "--frames", "40",
                        "--screenshot", str(shot), "--state-json", str(state)],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    v = json.loads(state.read_text())["view"]
    a = v["across_ranks"]
    assert a["state"] == "ready" and a["sharded"] and a["tensor"] == "after", a
    want = torch.load(dumps / "w_step1.pt")["blocks.0.up.weight"]
    got = a["assembled"]
    assert got["ok"] and got["shape"] == [32, 16] and got["parts"] == 2, got
    assert torch.equal(torch.tensor(got["values"], dtype=torch.float64).reshape(32, 16), want.double())
    assert [r["shard"].split(":")[0] for r in a["ranks"]] == ["shard 1 of 2 (Shard(0), fully_shard)",
                                                            "shard 2 of 2 (Shard(0), fully_shard)"], a["ranks"]
    assert a["ranks"][1]["shard"].endswith("rows 16\u201331 of 32"), a["ranks"][1]
    assert v["shard"]["offsets"] == [0, 0] and v["shard"]["global_shape"] == [32, 16], v["shard"]
