"""The recording checks of gpu_check.sh (run by it after the build):

  cnn   cuda_train.py plainly (--steps 3) and under `tvis run --steps 3`
        (the script asked for 5, so tvis stops it): the same `step` lines bit
        for bit; `tvis inspect --json` says 3 complete steps whose losses are
        the printed ones; no capture failed; per-step times side by side.
  ddp   ddp_nccl_train.py under a plain torchrun launch and under
        `tvis run --nproc-per-node N`: the same per-rank `step` lines; each
        rank's file has 3 steps with the printed losses; its RunMeta options
        name backend nccl (and rank, world_size N, launcher torchrun when
        N > 1: tvis treats world size 1 as not distributed). N is 2 when a plain torchrun of
        2 ranks on this one GPU works, else 1 (NCCL refuses two ranks on one
        GPU).

--cpu: a dry run of this file on a machine without a GPU (the scripts on the
CPU, DDP on gloo, which is then the backend expected).

Prints one `PASS <check>` or `FAIL <check>: <why>` line per check and
`INFO ...` lines; exits 1 when any check failed. Every command's output is
kept under <work>/logs."""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FAILED = []


def result(name, ok, why=""):
    if ok:
        print("PASS %s" % name, flush=True)
    else:
        FAILED.append(name)
        print("FAIL %s: %s" % (name, why), flush=True)
    return ok


def info(msg):
    print("INFO %s" % msg, flush=True)


class Runner:
    def __init__(self, work):
        self.logs = Path(work) / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.n = 0

    def __call__(self, tag, cmd, timeout=300, env=None, cwd=None):
        """Runs cmd; keeps its output in logs/<n>_<tag>.txt; returns (rc, stdout, stderr)."""
        self.n += 1
        try:
            p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, env=env,
                               cwd=cwd)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc = 124
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = (e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")) + "\n[timed out]"
        (self.logs / ("%02d_%s.txt" % (self.n, tag))).write_text(
            "$ %s\nrc %d\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(map(str, cmd)), rc, out, err))
        return rc, out, err


def tail(text, n=1500):
    return text[-n:].replace("\n", "\n    ")


def step_lines(stdout, prefix=""):
    return [l[len(prefix):] for l in stdout.splitlines() if l.startswith(prefix + "step ")]


def timings(stdout, prefix=""):
    return [float(m.group(2)) for m in re.finditer(r"^%stiming (\d+) ([0-9.]+)$" % re.escape(prefix), stdout, re.M)]


def rank_lines(stdout, what="step"):
    """{rank: [lines starting with `what`]} of torchrun's `[default<r>]:` prefixed output."""
    out = {}
    for m in re.finditer(r"^\[default(\d+)\]:(%s .*)$" % what, stdout, re.M):
        out.setdefault(int(m.group(1)), []).append(m.group(2))
    return out


def recorded_files(stdout):
    return sorted(set(re.findall(r"^(?:\[default\d+\]:)?tvis run: recorded (\S+)$", stdout, re.M)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def losses_of(lines):
    return [float(l.split()[3]) for l in lines]


def show_timings(name, plain, rec):
    for k in range(max(len(plain), len(rec))):
        p = "%.3f" % plain[k] if k < len(plain) else "-"
        r = "%.3f" % rec[k] if k < len(rec) else "-"
        info("%s step %d time: plain %s ms, recorded %s ms" % (name, k, p, r))


def read_meta(run, py, build, path):
    """(options dict, failure notices) of the run file, read by tvis._read in a child."""
    code = ("import json, sys\nfrom tvis._read import load\nm = load(sys.argv[1]).meta or {}\n"
            "print(json.dumps({'options': {o['key']: o['value'] for o in m.get('options', [])},"
            " 'notices': m.get('notices', [])}))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(build) / "python"), str(ROOT / "recorder" / "python")]))
    rc, out, err = run("read_meta", [py, "-c", code, path], timeout=120, env=env)
    if rc != 0:
        return None, "reading %s failed:\n    %s" % (path, tail(err))
    meta = json.loads(out.strip().splitlines()[-1])
    bad = [(n.get("code"), n.get("message", "")) for n in meta["notices"]
           if n.get("code", "").endswith("_failed") or n.get("code") == "recorder_error"]
    return meta["options"], bad


def inspect(run, tvis, path):
    rc, out, err = run("inspect", [tvis, "inspect", "--json", path], timeout=120)
    if rc != 0:
        return None, err
    return json.loads(out), ""


def check_cnn(run, a):
    script = HERE / "cuda_train.py"
    rc, plain, err = run("cnn_plain", [a.python, script, "--steps", 3])
    if not result("cnn plain run", rc == 0 and len(step_lines(plain)) == 3, "rc %d\n    %s" % (rc, tail(err))):
        return
    rc, rec, err = run("cnn_tvis", [a.tvis, "run", "--steps", 3, "--out", Path(a.work) / "runs" / "cnn",
                                    "--python", a.python, script, "--steps", 5])
    if not result("cnn tvis run", rc == 0, "rc %d\n    %s" % (rc, tail(err))):
        return
    for l in step_lines(plain):
        info("cnn plain    %s" % l)
    for l in step_lines(rec):
        info("cnn recorded %s" % l)
    result("cnn fidelity (3 steps, losses and weights digest bit for bit)",
           step_lines(rec) == step_lines(plain), "the recorded run printed other step lines")
    show_timings("cnn", timings(plain), timings(rec))
    files = recorded_files(rec)
    if not result("cnn run file", len(files) == 1 and os.path.exists(files[0]), "recorded files: %s" % files):
        return
    j, err = inspect(run, a.tvis, files[0])
    if not result("cnn inspect --json", j is not None, tail(err)):
        return
    printed = losses_of(step_lines(plain))
    result("cnn inspect: 3 complete steps, losses = printed", j["complete"] is True and j["steps"] == 3
           and j["losses"] == printed,
           "complete %s steps %s losses %s printed %s" % (j["complete"], j["steps"], j["losses"], printed))
    info("cnn run: %d events, %d modules, captured %s" % (j["events"], len(j["modules"]),
                                                         json.dumps(j["captured"])[:300]))
    options, bad = read_meta(run, a.python, a.build, files[0])
    if options is None:
        result("cnn capture failures", False, bad)
    else:
        result("cnn no capture failures", not bad, bad)


def torchrun(a, nproc):
    return [a.python, "-m", "torch.distributed.run", "--nnodes", 1, "--master_addr", "127.0.0.1", "--master_port",
            free_port(), "--nproc_per_node", nproc, "--redirects", 1, "--tee", 1]


def check_ddp(run, a):
    script = HERE / "ddp_nccl_train.py"
    # Two ranks on one GPU: NCCL refuses that (duplicate GPU); use 2 only where it works.
    nproc, plain = 1, None
    rc, out, err = run("ddp_plain_2ranks_probe", torchrun(a, 2) + [script, "--steps", 3], timeout=120)
    lines = rank_lines(out)
    if rc == 0 and sorted(lines) == [0, 1] and all(len(v) == 3 for v in lines.values()):
        info(a.backend + ": 2 ranks on one GPU work; the DDP check uses world size 2")
        nproc, plain = 2, out
    else:
        text = (err + out).splitlines()
        why = ([l for l in text if "Duplicate GPU" in l] or [l for l in text if "ncclInvalidUsage" in l]
               or [l for l in text if "Error" in l])
        info(a.backend + ": 2 ranks on one GPU do not train (rc %d: %s); the DDP check uses world size 1"
             % (rc, (why[0].strip() if why else tail(err, 300))[:300]))
    if plain is None:
        rc, plain, err = run("ddp_plain", torchrun(a, 1) + [script, "--steps", 3], timeout=180)
        if not result("ddp plain torchrun (%s, world size 1)" % a.backend, rc == 0 and len(rank_lines(plain).get(0, [])) == 3,
                      "rc %d\n    %s" % (rc, tail(err))):
            return
    lines = rank_lines(plain)
    rc, rec, err = run("ddp_tvis", [a.tvis, "run", "--nproc-per-node", nproc, "--steps", 3, "--out",
                                    Path(a.work) / "runs" / "ddp", "--python", a.python, script, "--steps", 5],
                       timeout=240)
    if not result("ddp tvis run --nproc-per-node %d" % nproc, rc == 0, "rc %d\n    %s" % (rc, tail(err))):
        return
    rec_lines = rank_lines(rec)
    for r in sorted(lines):
        for l in lines[r]:
            info("ddp rank %d plain    %s" % (r, l))
        for l in rec_lines.get(r, []):
            info("ddp rank %d recorded %s" % (r, l))
    result("ddp fidelity (world size %d, 3 steps per rank, bit for bit)" % nproc, rec_lines == lines,
           "the recorded launch printed other step lines")
    pt, rt = rank_lines(plain, "timing"), rank_lines(rec, "timing")
    for r in sorted(pt):
        show_timings("ddp rank %d" % r, [float(l.split()[2]) for l in pt[r]], [float(l.split()[2]) for l in rt.get(r, [])])
    files = recorded_files(rec)
    want = ["run.tvis"] + ["rank%d.tvis" % r for r in range(1, nproc)]
    if not result("ddp run files", sorted(os.path.basename(f) for f in files) == sorted(want)
                  and len({os.path.dirname(f) for f in files}) == 1, "recorded files: %s" % files):
        return
    folder = os.path.dirname(files[0])
    j, err = inspect(run, a.tvis, folder)
    if result("ddp inspect --json (folder)", j is not None, tail(err)) and "ranks" in j:
        result("ddp inspect: every rank 3 complete steps",
               [(r["rank"], r["steps"], r["complete"]) for r in j["ranks"]] == [(r, 3, True) for r in range(nproc)],
               "ranks %s" % j["ranks"])
    for r in range(nproc):
        path = os.path.join(folder, "run.tvis" if r == 0 else "rank%d.tvis" % r)
        j, err = inspect(run, a.tvis, path)
        if not result("ddp rank %d inspect --json" % r, j is not None, tail(err)):
            continue
        printed = losses_of(lines[r])
        result("ddp rank %d inspect: 3 complete steps, losses = printed" % r,
               j["complete"] is True and j["steps"] == 3 and [s[-1] for s in j["step_losses"]] == printed,
               "complete %s steps %s step_losses %s printed %s" % (j["complete"], j["steps"], j["step_losses"], printed))
        if "all_reduce_ms" in j:
            info("ddp rank %d all_reduce_ms %s" % (r, j["all_reduce_ms"]))
        options, bad = read_meta(run, a.python, a.build, path)
        if options is None:
            result("ddp rank %d metadata" % r, False, bad)
            continue
        info("ddp rank %d options %s" % (r, json.dumps(options)))
        # tvis treats a launch of world size 1 as not distributed (tools/cli/distributed_env.cpp):
        # no rank options then, only the backend of the process group the script made.
        want = {"backend": a.backend}
        if nproc > 1:
            want.update(rank=str(r), world_size=str(nproc), local_rank=str(r), launcher="torchrun")
        result("ddp rank %d metadata: %s" % (r, ", ".join("%s %s" % kv for kv in want.items())),
               all(options.get(k) == v for k, v in want.items()), "options %s" % options)
        result("ddp rank %d no capture failures" % r, not bad, bad)


def device_arguments(only, cpu_help):
    """The command line of the device scripts (this one, record_cost.py): --only picks one of `only`."""
    p = argparse.ArgumentParser()
    p.add_argument("--tvis", required=True)
    p.add_argument("--build", required=True, help="the CMake build folder (its python/ holds _tvis_native)")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--work", required=True)
    p.add_argument("--only", choices=only)
    p.add_argument("--cpu", action="store_true", help=cpu_help)
    return p.parse_args()


def main():
    a = device_arguments(["cnn", "ddp"], "dry run without a GPU: CPU and gloo")
    a.backend = "gloo" if a.cpu else "nccl"
    if a.cpu:
        os.environ["TVIS_GPU_CHECK_CPU"] = "1"
    run = Runner(a.work)
    if a.only in (None, "cnn"):
        check_cnn(run, a)
    if a.only in (None, "ddp"):
        check_ddp(run, a)
    print("%d check(s) failed: %s" % (len(FAILED), ", ".join(FAILED)) if FAILED else "all recording checks passed",
          flush=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
