"""Checks of tvis-view's state().view on runs of the library loops
(tests/loops/scripts), against what each script itself printed
(`step K loss L weights D`). Usage: check_library_pages.py CHECK ARGS...;
exits non-zero with the reason."""
import json
import math
import sys


def view(path):
    state = json.load(open(path))
    if state.get("errors"):
        sys.exit("%s: errors %s" % (path, state["errors"]))
    return state["view"]


def printed_losses(stdout_path):
    out = {}
    for line in open(stdout_path):
        parts = line.split()
        if len(parts) >= 4 and parts[0] == "step" and parts[2] == "loss":
            out[int(parts[1])] = float(parts[3])
    return out


def step_backwards(v, step):
    return [b["value"] for b in v["backwards"] if b["step"] == step]


def expect(cond, what):
    if not cond:
        sys.exit(what)


def micro_batches(view_path, stdout_path, step, count, factor=None):
    """The Loss page lists the step's `count` backward() calls, whose values add up to the loss the
    script printed for that step (the mean over micro-batches of losses divided by `count`)."""
    v = view(view_path)
    values = step_backwards(v, step)
    expect(len(values) == count, "step %d: %d backward() calls shown, want %d: %s" % (step, len(values), count, values))
    total, want = math.fsum(values), printed_losses(stdout_path)[step]
    expect(math.isclose(total, want, rel_tol=1e-6), "step %d: backward values add up to %r, printed %r" % (step, total, want))
    if factor is not None:
        expect(v["outer"] == "DivBackward0", "outer %r, want DivBackward0" % v["outer"])
        expect(v["loss_factor"] is not None and math.isclose(v["loss_factor"], factor, rel_tol=1e-6),
               "loss_factor %r, want %r" % (v["loss_factor"], factor))
        expect(any("divided by 4" in n for n in v["not_available"]), "no divisor sentence: %s" % v["not_available"])


def replay_phases(view_path, step):
    """Replay at `step`: every phase of a training step is there (data, forward, loss, backward,
    optimizer: none listed missing), and the step has stops."""
    v = view(view_path)
    expect(v["step"] == step and v["stops"] > 0, "replay step %r stops %r" % (v["step"], v["stops"]))
    expect(not v["missing"], "phases missing: %s" % v["missing"])


def weights(view_path, step, param, optimizer, skipped, grad_scale):
    v = view(view_path)
    expect(v["param"] == param and v["step"] == step, "weights shows %r at %r" % (v["param"], v["step"]))
    expect(v["present"], "%s not updated at step %d" % (param, step))
    expect(v["optimizer"] == optimizer, "optimizer %r, want %r" % (v["optimizer"], optimizer))
    expect(v["skipped"] == (skipped == "skipped"), "skipped %r at step %d" % (v["skipped"], step))
    expect(v["grad_scale"] == float(grad_scale), "grad_scale %r, want %r" % (v["grad_scale"], grad_scale))
    if v["show"] == "update":
        if v["skipped"]:
            expect(v["stats"] is None, "a skipped step shows an update: %s" % v["stats"])
        else:
            expect(v["stats"] is not None and v["stats"]["l2"] > 0, "no update statistics: %s" % v["stats"])


if __name__ == "__main__":
    name, args = sys.argv[1], sys.argv[2:]
    if name == "micro_batches":
        micro_batches(args[0], args[1], int(args[2]), int(args[3]), float(args[4]) if len(args) > 4 else None)
    elif name == "replay_phases":
        replay_phases(args[0], int(args[1]))
    elif name == "weights":
        weights(args[0], int(args[1]), args[2], args[3], args[4], args[5])
    else:
        sys.exit("unknown check " + name)
