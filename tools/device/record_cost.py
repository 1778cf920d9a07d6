"""What recording costs on a GPU: ResNet-50 (batch 64) and a GPT-2-shaped
124M LM (cost_models.py), each run plainly for 3 steps and under
`tvis run --steps 3`, side by side.

    python tools/device/record_cost.py --tvis BUILD/bin/tvis --build BUILD --work DIR [--python PY]
        [--only resnet50|gpt2] [--cpu]

Per model it prints `PASS`/`FAIL` lines (both runs finished; the recorded
run printed the plain run's losses bit for bit; the run file holds 3
complete steps) and one table row:

  plain / recorded step   `timing` of step 1 (step 0 warms up; step 2 runs
                          under torch.profiler for the overlap below)
  ratio                   recorded / plain; goal: <= 1.5x ResNet-50 (batch
                          64), <= 3x the 124M LM with one followed sample
  GPU peak plain / extra  torch.cuda.max_memory_allocated() after step 2, and
                          what recording added to it (recorded - plain)
  MB/step                 run file size / 3
  syncs/step              the device synchronizations recording added per
                          step: torch.cuda.set_sync_debug_mode("warn")'s
                          warnings of the recorded run minus the plain run's
                          (the script's own loss.item()), over 3 steps
  reads/step              the recorder's own count of its device -> host reads
                          (`tvis inspect`'s device_reads), the most of a step
  copy overlap            of the recorded step 2's device -> host copies, the
                          part of their time during which a kernel ran on
                          another stream (the side stream overlapping the
                          training), from the profiler's trace; "-" without
                          such copies (the CPU)

`gpu_check.sh --cost` builds against the machine's torch and runs this.
--cpu: the same on the CPU at small sizes (cost_models.py --small), so that
the script runs end to end anywhere (tests/recorder/test_record_cost.py);
the memory columns are 0 there. Exits 1 when any check failed.
"""
import json
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


SYNC_WARNING = "called a synchronizing CUDA operation"
PROFILED = STEPS - 1  # the step run under torch.profiler (not timed)


def copy_overlap(trace_path):
    """Of the device -> host copies in a Chrome trace, the fraction of their
    time during which a kernel ran on another stream; None without copies."""
    import json
    try:
        data = json.loads(Path(trace_path).read_text())
    except (OSError, ValueError):
        return None
    events = data if isinstance(data, list) else data.get("traceEvents", [])  # torch 1.x: a bare list
    copies, kernels = [], {}
    for e in events:
        if e.get("ph") != "X" or "dur" not in e:
            continue
        span = (float(e["ts"]), float(e["ts"]) + float(e["dur"]))
        stream = (e.get("args") or {}).get("stream", e.get("tid"))
        if e.get("cat") == "gpu_memcpy" and "DtoH" in e.get("name", ""):
            copies.append((stream, span))
        elif e.get("cat") == "kernel":
            kernels.setdefault(stream, []).append(span)
    total = sum(b - a for _, (a, b) in copies)
    if not copies or total <= 0:
        return None
    covered = 0.0
    for stream, (a, b) in copies:
        spans = sorted((max(a, x), min(b, y)) for s, ks in kernels.items() if s != stream for x, y in ks
                       if x < b and y > a)
        end = a
        for x, y in spans:  # the union of the other streams' kernels within [a, b]
            x = max(x, end)
            if y > x:
                covered += y - x
                end = y
    return covered / total


def measure(run, a, model):
    """One table row (dict) for `model`, or None when a run failed."""
    script = [HERE / "cost_models.py", "--model", model, "--profile-step", PROFILED] + (["--small"] if a.cpu else [])
    work = Path(a.work)
    env = dict(os.environ, PYTHONWARNINGS="always")  # every sync warning printed, not once per place
    rc, plain, err = run(model + "_plain", [a.python] + script + ["--steps", STEPS], timeout=900,
                         env=dict(env, TVIS_COST_PROFILE=str(work / (model + "_plain_trace.json"))))
    if not result("%s plain run" % model, rc == 0 and len(steps_of(plain)) == STEPS, "rc %d\n    %s" % (rc, tail(err))):
        return None
    plain_syncs = err.count(SYNC_WARNING)
    # --project tools/: the GPT class lives in tools/bench/recorder (attention is captured in project code)
    trace = work / (model + "_trace.json")
    rc, rec, err = run(model + "_tvis", [a.tvis, "run", "--steps", STEPS, "--out", work / "runs" / model,
                                         "--project", HERE.parent, "--python", a.python] + script
                       + ["--steps", STEPS + 2], timeout=1800, env=dict(env, TVIS_COST_PROFILE=str(trace)))
    if not result("%s tvis run" % model, rc == 0, "rc %d\n    %s" % (rc, tail(err))):
        return None
    rec_syncs = err.count(SYNC_WARNING)
    for l in plain.splitlines()[:2]:
        info("%s %s" % (model, l))
    result("%s losses bit for bit (%d steps)" % (model, STEPS), steps_of(rec) == steps_of(plain),
           "plain %s recorded %s" % (steps_of(plain), steps_of(rec)))
    files = recorded_files(rec)
    if not result("%s run file" % model, len(files) == 1 and os.path.exists(files[0]), "recorded files: %s" % files):
        return None
    steps = recorded_steps(run, a, files[0])
    result("%s run file holds %d complete steps" % (model, STEPS), steps == STEPS, "steps %s" % steps)
    rc, out, err = run(model + "_inspect", [a.tvis, "inspect", "--json", files[0]], timeout=300)
    # per step begun: the recorded ones and the one `tvis run` stopped as it began
    reads = (json.loads(out).get("device_reads", []) if rc == 0 else [])[:STEPS]
    result("%s run records its device reads per step" % model, len(reads) == STEPS, "device_reads %s" % reads)
    pt, rt = lines(plain, "timing"), lines(rec, "timing")
    pm, rm = lines(plain, "memory"), lines(rec, "memory")
    timed = [k for k in range(1, STEPS) if k != PROFILED]
    p_ms = statistics.median(float(pt[k]) for k in timed)
    r_ms = statistics.median(float(rt[k]) for k in timed if k in rt)
    last = STEPS - 1
    return {"model": model, "plain_ms": p_ms, "recorded_ms": r_ms, "ratio": r_ms / p_ms,
            "peak_plain": int(pm.get(last, 0)), "peak_extra": int(rm.get(last, 0)) - int(pm.get(last, 0)),
            "mb_per_step": os.path.getsize(files[0]) / 1e6 / STEPS,
            "syncs": (rec_syncs - plain_syncs) / STEPS, "reads": max(reads) if reads else -1,
            "overlap": copy_overlap(trace)}


def recorded_steps(run, a, path):
    """Complete steps the run file holds (its RunMeta), read by tvis._read in a child."""
    code = "import sys\nfrom tvis._read import load\nm = load(sys.argv[1]).meta or {}\nprint(m.get('steps_recorded', -1))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(a.build) / "python"),
                                                       str(HERE.parents[1] / "recorder" / "python")]))
    rc, out, err = run("read_steps", [a.python, "-c", code, path], timeout=300, env=env)
    return int(out.strip().splitlines()[-1]) if rc == 0 and out.strip() else "unreadable: " + tail(err, 300)


GOALS = {"resnet50": 1.5, "gpt2": 3.0}  # step ratio goals on a GPU (issue 43)


def table(rows):
    out = ["| model | plain step | recorded step | ratio | GPU peak plain | extra GPU memory at peak | MB/step "
           "| syncs/step | reads/step | copy overlap | ratio goal |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %.1f ms | %.1f ms | %.2fx | %.0f MiB | %+.0f MiB | %.1f | %.1f | %d | %s | <= %.1fx |" % (
            r["model"], r["plain_ms"], r["recorded_ms"], r["ratio"], r["peak_plain"] / 2**20,
            r["peak_extra"] / 2**20, r["mb_per_step"], r["syncs"], r["reads"],
            "-" if r["overlap"] is None else "%.0f%%" % (100 * r["overlap"]), GOALS[r["model"]]))
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
