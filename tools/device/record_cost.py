"""What recording costs on a GPU: ResNet-50 (batch 64) and a GPT-2-shaped
124M LM (cost_models.py), each run plainly for 3 steps and under
`tvis run --steps 3`, side by side.

    python tools/device/record_cost.py --tvis BUILD/bin/tvis --build BUILD --work DIR [--python PY]
        [--only resnet50|gpt2] [--cpu]

Per model it prints `PASS`/`FAIL` lines (both runs finished; the recorded
run printed the plain run's losses bit for bit; the run file holds 3
complete steps) and one table row:

  plain / recorded step   median `timing` of steps 1-2 (step 0 warms up)
  ratio                   recorded / plain
  GPU peak plain / extra  torch.cuda.max_memory_allocated() after step 2, and
                          what recording added to it (recorded - plain)
  MB/step                 run file size / 3

`gpu_check.sh --cost` builds against the machine's torch and runs this.
--cpu: the same on the CPU at small sizes (cost_models.py --small), so that
the script runs end to end anywhere (tests/recorder/test_record_cost.py);
the memory columns are 0 there. Exits 1 when any check failed.
"""
import os
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_fidelity import FAILED, Runner, device_arguments, info, recorded_files, result, tail  # noqa: E402

HERE = Path(__file__).resolve().parent
STEPS = 3


def lines(stdout, what):
    """{step: value} of the `<what> <step> <value>` lines."""
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^%s (\d+) (\S+)$" % what, stdout, re.M)}


def steps_of(stdout):
    return [l for l in stdout.splitlines() if l.startswith("step ")]


def measure(run, a, model):
    """One table row (dict) for `model`, or None when a run failed."""
    script = [HERE / "cost_models.py", "--model", model] + (["--small"] if a.cpu else [])
    rc, plain, err = run(model + "_plain", [a.python] + script + ["--steps", STEPS], timeout=900)
    if not result("%s plain run" % model, rc == 0 and len(steps_of(plain)) == STEPS, "rc %d\n    %s" % (rc, tail(err))):
        return None
    # --project tools/: the GPT class lives in tools/bench/recorder (attention is captured in project code)
    rc, rec, err = run(model + "_tvis", [a.tvis, "run", "--steps", STEPS, "--out", Path(a.work) / "runs" / model,
                                         "--project", HERE.parent, "--python", a.python] + script
                       + ["--steps", STEPS + 2], timeout=1800)
    if not result("%s tvis run" % model, rc == 0, "rc %d\n    %s" % (rc, tail(err))):
        return None
    for l in plain.splitlines()[:2]:
        info("%s %s" % (model, l))
    result("%s losses bit for bit (%d steps)" % (model, STEPS), steps_of(rec) == steps_of(plain),
           "plain %s recorded %s" % (steps_of(plain), steps_of(rec)))
    files = recorded_files(rec)
    if not result("%s run file" % model, len(files) == 1 and os.path.exists(files[0]), "recorded files: %s" % files):
        return None
    steps = recorded_steps(run, a, files[0])
    result("%s run file holds %d complete steps" % (model, STEPS), steps == STEPS, "steps %s" % steps)
    pt, rt = lines(plain, "timing"), lines(rec, "timing")
    pm, rm = lines(plain, "memory"), lines(rec, "memory")
    later = range(1, STEPS)
    p_ms = statistics.median(float(pt[k]) for k in later)
    r_ms = statistics.median(float(rt[k]) for k in later if k in rt)
    last = STEPS - 1
    return {"model": model, "plain_ms": p_ms, "recorded_ms": r_ms, "ratio": r_ms / p_ms,
            "peak_plain": int(pm.get(last, 0)), "peak_extra": int(rm.get(last, 0)) - int(pm.get(last, 0)),
            "mb_per_step": os.path.getsize(files[0]) / 1e6 / STEPS}


def recorded_steps(run, a, path):
    """Complete steps the run file holds (its RunMeta), read by tvis._read in a child."""
    code = "import sys\nfrom tvis._read import load\nm = load(sys.argv[1]).meta or {}\nprint(m.get('steps_recorded', -1))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(a.build) / "python"),
                                                       str(HERE.parents[1] / "recorder" / "python")]))
    rc, out, err = run("read_steps", [a.python, "-c", code, path], timeout=300, env=env)
    return int(out.strip().splitlines()[-1]) if rc == 0 and out.strip() else "unreadable: " + tail(err, 300)


def table(rows):
    out = ["| model | plain step | recorded step | ratio | GPU peak plain | extra GPU memory at peak | MB/step |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %.1f ms | %.1f ms | %.2fx | %.0f MiB | %+.0f MiB | %.1f |" % (
            r["model"], r["plain_ms"], r["recorded_ms"], r["ratio"], r["peak_plain"] / 2**20,
            r["peak_extra"] / 2**20, r["mb_per_step"]))
    return "\n".join(out)


def main():
    a = device_arguments(["resnet50", "gpt2"], "on the CPU at small sizes (a dry run)")
    if a.cpu:
        os.environ["TVIS_GPU_CHECK_CPU"] = "1"
    run = Runner(a.work)
    rows = [r for r in (measure(run, a, m) for m in ("resnet50", "gpt2") if a.only in (None, m)) if r]
    print(table(rows), flush=True)
    print("%d check(s) failed: %s" % (len(FAILED), ", ".join(FAILED)) if FAILED else "all cost checks passed",
          flush=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
