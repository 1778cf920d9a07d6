"""Distributed training recorded per rank (docs/cli.md "Distributed"): DDP
on CPU with gloo, 2 processes, launched by `tvis run --nproc-per-node`, by
`torchrun -m tvis run`, and as srun would (SLURM_* in each task's
environment). Each rank's training is bit-identical to the plain launch;
every rank stops after N steps; the ranks share one run folder (run.tvis is
rank 0, rank<k>.tvis the others); weights and all-reduced gradients agree
across ranks, losses do not; a rank that raises ends the launch and every
rank's recording says why."""
import os
import re
import socket
import subprocess
import sys

from conftest import BUILD_DIR, PYTHON, ROOT, SCRIPTS, inspect_json, load_run

SCRIPT = SCRIPTS / "ddp_train.py"
TORCHRUN = [PYTHON, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "--redirects", "1",
            "--tee", "1"]


def rank_lines(stdout):
    """{rank: [the `step ...` lines it printed]} from torchrun's prefixed output."""
    out = {}
    for m in re.finditer(r"^\[default(\d+)\]:(step .*)$", stdout, re.M):
        out.setdefault(int(m.group(1)), []).append(m.group(2))
    return out


def recorded_files(stdout):
    return sorted(set(re.findall(r"tvis run: recorded (\S+)$", stdout, re.M)))


def options_of(run):
    return {o["key"]: o["value"] for o in run.meta.get("options", [])}


def tensors_by(run, role):
    """{(parameter name, step): values} of the run's records of `role`."""
    return {(t["name"], t["step"]): run.values(t["id"]) for t in run.tensors.values() if t.get("role") == role}


def plain_lines(steps, tmp_path):
    p = subprocess.run(TORCHRUN + [str(SCRIPT), "--steps", str(steps)], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    lines = rank_lines(p.stdout)
    assert sorted(lines) == [0, 1] and all(len(v) == steps for v in lines.values()), p.stdout
    return lines


def check_ranks_folder(tvis, files, steps, lines):
    """One folder with run.tvis and rank1.tvis, each rank's run what it printed."""
    assert len(files) == 2 and os.path.dirname(files[0]) == os.path.dirname(files[1]), files
    assert sorted(os.path.basename(f) for f in files) == ["rank1.tvis", "run.tvis"]
    folder = os.path.dirname(files[0])
    info = inspect_json(tvis, folder)
    assert [(r["rank"], r["steps"], r["complete"]) for r in info["ranks"]] == [(0, steps, True), (1, steps, True)]
    runs = {0: load_run(os.path.join(folder, "run.tvis")), 1: load_run(os.path.join(folder, "rank1.tvis"))}
    for rank, run in runs.items():
        o = options_of(run)
        assert (o["rank"], o["world_size"], o["local_rank"], o["backend"]) == (str(rank), "2", str(rank), "gloo"), o
        printed = [float(l.split()[3]) for l in lines[rank]]
        assert info["ranks"][rank]["losses"] == printed
    assert info["ranks"][0]["losses"] != info["ranks"][1]["losses"], "each rank has its own data"
    for role in ("Weight", "Grad"):  # gradients are recorded after DDP's all-reduce
        a, b = tensors_by(runs[0], role), tensors_by(runs[1], role)
        assert a.keys() == b.keys() and len(a) >= 4 * steps, (role, sorted(a))
        for key in a:
            assert a[key] is not None and (a[key] == b[key]).all(), (role, key)
    return runs


def test_nproc_per_node_records_every_rank_as_the_plain_launch_trains(tvis, tmp_path):
    lines = plain_lines(3, tmp_path)
    p = subprocess.run([tvis, "run", "--nproc-per-node", "2", "--steps", "3", "--out", str(tmp_path / "runs"),
                        str(SCRIPT), "--steps", "6"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    assert rank_lines(p.stdout) == lines, "training differs under tvis run"
    check_ranks_folder(tvis, recorded_files(p.stdout), 3, lines)


def test_torchrun_module_launch(tvis, tmp_path):
    lines = plain_lines(2, tmp_path)
    env = dict(os.environ, TVIS_BIN=tvis,
               PYTHONPATH=os.pathsep.join([str(ROOT / "recorder" / "python"), str(BUILD_DIR / "python")]))
    p = subprocess.run(TORCHRUN + ["-m", "tvis", "run", "--steps", "2", "--out", str(tmp_path / "runs"), str(SCRIPT),
                                   "--steps", "5"], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    assert rank_lines(p.stdout) == lines
    check_ranks_folder(tvis, recorded_files(p.stdout), 2, lines)


def test_srun_tasks_share_one_run_folder(tvis, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(2):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RANK", "WORLD_SIZE", "TORCHELASTIC"))}
        env.update(SLURM_PROCID=str(rank), SLURM_NTASKS="2", SLURM_LOCALID=str(rank), SLURM_JOB_ID="4242",
                   SLURM_STEP_ID="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([tvis, "run", "--steps", "2", "--out", str(tmp_path / "runs"), str(SCRIPT),
                                       "--steps", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      env=env, cwd=tmp_path))
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e[-2000:] for _, e in outs]
    files = recorded_files(outs[0][0] + outs[1][0])
    lines = {r: [l for l in outs[r][0].splitlines() if l.startswith("step ")] for r in range(2)}
    runs = check_ranks_folder(tvis, files, 2, lines)
    assert options_of(runs[1])["launcher"] == "srun"


def test_a_rank_that_raises_ends_every_recording_with_the_reason(tvis, tmp_path):
    p = subprocess.run([tvis, "run", "--nproc-per-node", "2", "--steps", "3", "--out", str(tmp_path / "runs"),
                        str(SCRIPT), "--steps", "6", "--fail-rank", "1", "--fail-step", "1"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode != 0
    assert "rank 1 fails at step 1" in p.stderr
    folders = [d for d in (tmp_path / "runs").iterdir() if d.is_dir() and not d.name.startswith(".")]
    assert len(folders) == 1
    info = inspect_json(tvis, folders[0])
    assert [r["rank"] for r in info["ranks"]] == [0, 1]
    failed = load_run(folders[0] / "rank1.tvis").meta
    assert "rank 1 fails at step 1" in failed["exception"] and failed["steps_recorded"] == 1
    ended = load_run(folders[0] / "run.tvis").meta
    assert ended.get("exception"), "rank 0's recording does not say why it ended"
