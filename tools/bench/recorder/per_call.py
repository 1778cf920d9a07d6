"""The recorder's fixed cost per module call, measured in one process.

    build/venv/bin/python tools/bench/recorder/per_call.py [--build DIR] [--calls 200] [--steps 8]
        [--captures-off NAMES] [--no-tracer] [--profile N] [--stat median|min] [--by-hook N]

Runs tiny_calls.py's model (a chain of --calls nn.Linear(8, 8) + nn.ReLU
pairs, batch 4, SGD: 2 x calls + 1 module calls a step) for --steps plain
steps, then installs a recording Session (as `tvis run` would, into a
temporary run file) and runs --steps + 1 recorded steps, the first excluded
as warm-up. Step time is the training thread's CPU time (time.thread_time,
so other processes on a shared machine do not count); medians (--stat min:
the fastest step of each, which a busy host's interference cannot lower;
use it to compare two builds on a noisy machine). Prints the
plain and recorded step, the ratio and the extra microseconds per module
call.

--captures-off: TVIS_CAPTURES_OFF for the session (`all`: every capture).
--no-tracer: the project-code profile function (FunctionCall events) is
not installed, to see its share.
--profile N: cProfile over the recorded steps, the N most expensive
functions by own time (without the project-code profile function: one
profile function at a time).
--by-hook N: also times each probe's and capture's hook calls (each
subscriber function wrapped in a wall-clock perf_counter pair, ~0.1 us)
over the recorded steps and prints the N largest as microseconds per module call,
with their calls and the time of one call: what each subscriber adds, read
in the same process (the timing itself is in the recorded step's figure).
"""
import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def step_times(model, opt, steps):
    import torch
    import torch.nn.functional as F
    out = []
    for _ in range(steps):
        t0 = time.thread_time()
        x = torch.randn(4, 8)
        loss = F.mse_loss(model(x), torch.zeros(4, 8))
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()
        out.append(time.thread_time() - t0)
    return out


def time_hooks(bus):
    """Wraps each subscriber function in `bus`'s hook lists with a timer (the
    bus's own call() still runs them, errors handled as ever); returns
    {(hook, subscriber): [ns, calls]}, filled as the hooks run."""
    times = {}

    def timed(hook, short, fn):
        acc = times.setdefault((hook, short), [0, 0])

        def run(*args):
            t0 = time.perf_counter_ns()
            try:
                fn(*args)
            finally:
                acc[0] += time.perf_counter_ns() - t0
                acc[1] += 1
        return run

    for hook, subs in bus._by_hook.items():
        bus._by_hook[hook] = [(short, timed(hook, short, fn)) for short, fn in subs]
    return times


def print_by_hook(times, module_calls, n):
    print("subscriber hooks, largest first (us per module call; calls; us per call):")
    ran = [kv for kv in times.items() if kv[1][1]]  # hooks that were called
    for (hook, short), (ns, count) in sorted(ran, key=lambda kv: -kv[1][0])[:n]:
        print("  %-14s %-24s %6.2f us  %7d  %8.2f us" % (short, hook, ns / module_calls / 1e3, count,
                                                      ns / count / 1e3))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build" / "native"))
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--captures-off", default="")
    ap.add_argument("--no-tracer", action="store_true")
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--stat", choices=("median", "min"), default="median")
    ap.add_argument("--by-hook", type=int, default=0)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "recorder" / "python"))
    sys.path.insert(0, str(HERE))
    import torch
    from tvis import native
    from tvis.captures import names as capture_names
    mod = native.load([str(Path(args.build) / "python"), str(ROOT / "build" / "native-torch1" / "python")])
    off = ",".join(sorted(capture_names())) if args.captures_off == "all" else args.captures_off
    os.environ["TVIS_CAPTURES_OFF"] = off
    from tvis.session.session import Session
    from tiny_calls import model_of

    torch.manual_seed(0)
    model = model_of(args.calls)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    stat = statistics.median if args.stat == "median" else min
    plain = stat(step_times(model, opt, args.steps + 1)[1:])
    with tempfile.TemporaryDirectory(prefix="tvis-per-call-") as d:
        session = Session(mod, os.path.join(d, "run.tvis"), {"steps": args.steps + 10, "project_dir": str(HERE)},
                          str(HERE / "tiny_calls.py"))
        session.install()
        # The optimizer the script makes once tvis is in (as under `tvis run`): one created before
        # install() is not seen, and its steps would take the hand-written-update path
        # (hand_written_steps.py: a graph walk and every parameter listed per step).
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        by_hook = time_hooks(session.bus) if args.by_hook else None
        if args.no_tracer or args.profile:  # cProfile and the tracer are both profile functions
            session.rec.stop_profile()
        prof = cProfile.Profile() if args.profile else None
        step_times(model, opt, 1)  # warm-up, not counted
        for acc in (by_hook or {}).values():
            acc[:] = [0, 0]
        if prof:
            prof.enable()
        recorded = step_times(model, opt, args.steps)
        if prof:
            prof.disable()
        if by_hook is not None:  # the recorded steps' figures, not the finalize that follows
            by_hook = {k: list(v) for k, v in by_hook.items()}
        session.finalize()
    if os.environ.get("PER_CALL_LIST"):
        print("recorded steps ms:", " ".join("%.1f" % (t * 1e3) for t in recorded))
    rec = stat(recorded)
    calls = 2 * args.calls + 1
    print("torch %s, %d module calls a step, captures off: %s%s" % (
        torch.__version__, calls, off or "none", ", no project-code tracer" if args.no_tracer else ""))
    print("plain %.2f ms  recorded %.2f ms  ratio %.2fx  per call %.1f us" % (
        plain * 1e3, rec * 1e3, rec / plain, (rec - plain) / calls * 1e6))
    if by_hook:
        print_by_hook(by_hook, args.steps * calls, args.by_hook)
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(args.profile)
        if os.environ.get("PER_CALL_CALLEES"):
            pstats.Stats(prof).print_callees(os.environ["PER_CALL_CALLEES"])
        if os.environ.get("PER_CALL_CALLERS"):
            pstats.Stats(prof).print_callers(os.environ["PER_CALL_CALLERS"])


if __name__ == "__main__":
    main()
