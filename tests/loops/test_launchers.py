"""Ranks a script starts itself, recorded by a plain `tvis run SCRIPT`
(recorder/python/tvis/session/child_ranks.py): Lightning's launcher
(`Trainer(devices=2, strategy="ddp")` runs the script again for rank 1),
`accelerate launch --num_processes 2` (torchrun inside accelerate's process)
and `torch.multiprocessing.spawn` (and `start_processes` with fork, as accelerate's
notebook_launcher starts ranks on the CPU). 2 ranks, gloo on the CPU, a tiny model.

Each launch runs plainly first; under `tvis run --steps 2` every rank prints
the plain run's lines (loss as repr(float), a digest of the parameter bytes
after the step) for the steps it recorded, bit for bit; the run folder holds
run.tvis and rank1.tvis and no other .tvis file, `tvis run` names both, and
each rank file says which rank of which launcher it is, with the losses it
printed. Needs lightning and accelerate (build/venv): newest torch only."""
import json
import os
import re
import subprocess
from pathlib import Path

from recorder_conftest import PYTHON, inspect_json, launch_ranks, load_run

SCRIPTS = Path(__file__).resolve().parent / "scripts"
ACCELERATE = str(Path(PYTHON).parent / "accelerate")
STEPS = 2


def step_lines(stdout):
    """{rank: [its `rank R step S ...` lines]}."""
    out = {}
    for m in re.finditer(r"^(rank (\d+) step \d+ .*)$", stdout, re.M):
        out.setdefault(int(m.group(2)), []).append(m.group(1))
    return out


def plain(cmd, cwd):
    p = launch_ranks(cmd, cwd)  # relaunched when torch's own teardown aborts a rank
    lines = step_lines(p.stdout)
    assert sorted(lines) == [0, 1], p.stdout[-2000:]
    return lines


def recorded(tvis, tmp_path, cmd, plain_lines, launcher, *opts):
    """`tvis run --steps 2 CMD...` trains as the plain run did on both ranks and records both."""
    p = subprocess.run([tvis, "run", "--steps", str(STEPS), "--out", str(tmp_path / "runs"), *opts, *cmd],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-3000:])
    assert "not recorded" not in p.stderr, p.stderr[-2000:]
    lines = step_lines(p.stdout)
    assert {r: v for r, v in lines.items()} == {r: v[:STEPS] for r, v in plain_lines.items()}, \
        "training differs under tvis run"
    files = sorted(set(re.findall(r"tvis run: recorded (\S+)$", p.stdout, re.M)))
    assert sorted(os.path.basename(f) for f in files) == ["rank1.tvis", "run.tvis"], p.stdout[-2000:]
    folder = os.path.dirname(files[0])
    assert sorted(f for f in os.listdir(folder) if f.endswith(".tvis")) == ["rank1.tvis", "run.tvis"]
    info = inspect_json(tvis, folder)
    assert [(r["rank"], r["steps"], r["complete"]) for r in info["ranks"]] == [(0, STEPS, True), (1, STEPS, True)]
    runs = {}
    for rank, name in ((0, "run.tvis"), (1, "rank1.tvis")):
        run = load_run(os.path.join(folder, name))
        o = {x["key"]: x["value"] for x in run.meta.get("options", [])}
        assert (o.get("rank"), o.get("world_size"), o.get("launcher")) == (str(rank), "2", launcher), o
        printed = [float(l.split()[5]) for l in lines[rank]]
        assert info["ranks"][rank]["losses"] == printed, (rank, info["ranks"][rank], printed)
        assert not [n for n in run.meta.get("notices", []) if n.get("code") == "recorder_error"]
        runs[rank] = run
    return folder, runs, info


def test_lightning_ddp_records_both_ranks_with_the_lightning_modules_paths(tvis, tmp_path):
    cmd = [str(SCRIPTS / "launch_lightning.py"), "ddp", "3"]
    lines = plain([PYTHON] + cmd, tmp_path)
    folder, runs, info = recorded(tvis, tmp_path, cmd, lines, "lightning")
    # training_step calls self.net directly: paths start at the LightningModule (net.0), no wrapper's path inside
    assert {"net", "net.0", "net.2"} <= set(info["modules"]), info["modules"]
    assert not [m for m in info["modules"] if m in ("0", "1", "2") or m.startswith(("module.", "_forward_module"))]
    weights = {t["name"] for t in runs[1].tensors.values() if t.get("role") == "Weight"}
    assert weights == {"net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias"}, weights


def test_lightning_single_process_paths_start_at_the_lightning_module(tvis, tmp_path):
    """training_step calls self.net directly and nothing calls the LightningModule: the paths are still
    the LightningModule's (they were `0, 1, 2`, the called Sequential's own)."""
    cmd = [str(SCRIPTS / "launch_lightning.py"), "single", "3"]
    p = subprocess.run([tvis, "run", "--steps", str(STEPS), "--out", str(tmp_path / "runs"), *cmd],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    path = re.findall(r"tvis run: recorded (\S+)$", p.stdout, re.M)[0]
    assert inspect_json(tvis, path)["modules"] == ["net", "net.0", "net.1", "net.2"]
    weights = {t["name"] for t in load_run(path).tensors.values() if t.get("role") == "Weight"}
    assert weights == {"net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias"}, weights


def test_accelerate_launch_records_both_ranks_not_the_launcher(tvis, tmp_path):
    """`tvis run accelerate launch ...`: the recorded process is accelerate's launcher (torchrun's agent),
    which trains nothing; its recording is handed over to rank 0 (run.tvis is rank 0's)."""
    launch = ["launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
              "--dynamo_backend", "no", "--main_process_port"]
    script = [str(SCRIPTS / "launch_accelerate.py"), "3"]
    lines = plain([ACCELERATE] + launch + [str(_free_port())] + script, tmp_path)
    recorded(tvis, tmp_path, [ACCELERATE] + launch + [str(_free_port())] + script, lines, "torchrun",
             "--project", str(SCRIPTS))


def test_mp_spawn_records_each_spawned_rank(tvis, tmp_path):
    cmd = [str(SCRIPTS / "launch_spawn.py"), "3"]
    lines = plain([PYTHON] + cmd, tmp_path)
    folder, runs, info = recorded(tvis, tmp_path, cmd, lines, "torch.multiprocessing.spawn")
    for role in ("Weight", "Grad"):  # replicas: all-reduced gradients and weights agree bit for bit
        a = {(t["name"], t["step"]): t["id"] for t in runs[0].tensors.values() if t.get("role") == role}
        b = {(t["name"], t["step"]): t["id"] for t in runs[1].tensors.values() if t.get("role") == role}
        assert a.keys() == b.keys() and len(a) >= 4 * STEPS, (role, sorted(a))
        for key in a:
            assert (runs[0].values(a[key]) == runs[1].values(b[key])).all(), (role, key)
    d = subprocess.run([tvis, "diagnose", "--json", folder], capture_output=True, text=True, timeout=120)
    assert d.returncode == 0, d.stderr
    assert [f["kind"] for f in json.loads(d.stdout)["findings"] if f["kind"] == "ranks_diverge"] == []


def test_ddp_bypassed_at_the_first_step_is_ranks_diverge_at_step_0(tvis, tmp_path):
    cmd = [str(SCRIPTS / "launch_spawn.py"), "3", "--bypass"]
    lines = plain([PYTHON] + cmd, tmp_path)
    folder, _, _ = recorded(tvis, tmp_path, cmd, lines, "torch.multiprocessing.spawn")
    d = subprocess.run([tvis, "diagnose", "--json", folder], capture_output=True, text=True, timeout=120)
    assert d.returncode == 1, d.stderr  # an error-level finding
    found = [f for f in json.loads(d.stdout)["findings"] if f["kind"] == "ranks_diverge"]
    assert len(found) == 1, json.loads(d.stdout)["findings"]
    f = found[0]
    assert f["step"] == 0 and f["evidence"]["case"] == "not_all_reduced", f
    assert f["param"] == "0.weight" and (f["evidence"]["rank_a"], f["evidence"]["rank_b"]) == (0, 1), f


def test_mp_start_processes_with_fork_records_each_forked_rank(tvis, tmp_path):
    """start_method="fork" (accelerate's notebook_launcher on the CPU): each forked rank takes out what it
    inherited of the launcher and records itself."""
    cmd = [str(SCRIPTS / "launch_spawn.py"), "3", "--fork"]
    recorded(tvis, tmp_path, cmd, plain([PYTHON] + cmd, tmp_path), "torch.multiprocessing.spawn")


def test_ranks_started_by_forkserver_are_named_as_not_recorded(tvis, tmp_path):
    """start_method="forkserver": the ranks train unrecorded, as plainly, and the run says which ranks were
    not recorded and why: on stderr and in the launching process's recording (a notice inspect lists)."""
    cmd = [str(SCRIPTS / "launch_spawn.py"), "3", "--forkserver"]
    lines = plain([PYTHON] + cmd, tmp_path)
    p = subprocess.run([tvis, "run", "--steps", str(STEPS), "--out", str(tmp_path / "runs"), *cmd],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    assert step_lines(p.stdout) == lines, "training differs under tvis run"
    why = ("ranks 0, 1 of a world of 2 were not recorded: started by torch.multiprocessing with "
           "start_method='forkserver'")
    assert "tvis run: " + why in p.stderr, p.stderr[-2000:]
    files = re.findall(r"tvis run: recorded (\S+)$", p.stdout, re.M)
    assert [os.path.basename(f) for f in files] == ["run.tvis"], p.stdout[-2000:]
    assert [n for n in inspect_json(tvis, files[0])["notices"] if why in n]
    notices = load_run(files[0]).meta.get("notices", [])
    assert [n for n in notices if n.get("code") == "rank_not_recorded" and why in n.get("message", "")], notices


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
