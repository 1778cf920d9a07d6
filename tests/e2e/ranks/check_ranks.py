"""Checks of test_ranks.sh on the viewer's state() (tvis-view --state-json or
the browser's window.tvisViewer.state(), saved as JSON) against what the rank
files hold, read independently of the viewer: `tvis inspect --json` of each
rank file for the losses, the recorder's reader (tvis._read) for the weights.

  check_ranks.py picker STATE RANK RANKS           the rank picker's figures
  check_ranks.py losses STATE INSPECT0 INSPECT1     Loss: each rank's curve == inspect's
  check_ranks.py weights STATE RUN0 RUN1 PARAM STEP Weights: across_ranks == max |after0 - after1|
  check_ranks.py runs STATE NAME RANKS              a run list lists NAME once with RANKS
"""
import json
import sys


def fail(msg, detail=None):
    sys.exit(f"{msg}: {json.dumps(detail)[:2000]}" if detail is not None else msg)


def load_state(path):
    s = json.load(open(path))
    if s.get("errors"):
        fail("the viewer reports errors", s["errors"])
    return s


def picker(state, rank, ranks):
    run = load_state(state)["run"]
    if run is None or run["rank"] != int(rank) or run["ranks"] != int(ranks):
        fail(f"expected rank {rank} of {ranks}", run)
    if int(ranks) > 1:
        names = [f["name"] for f in run["rank_files"]]
        if [f["rank"] for f in run["rank_files"]] != list(range(int(ranks))) or names[0] != "run.tvis":
            fail("rank files", run["rank_files"])
        if run["rank_problems"]:
            fail("rank problems", run["rank_problems"])


def losses(state, *inspects):
    v = load_state(state)["view"]
    got = {c["rank"]: c["losses"] for c in v["rank_losses"]}
    want = {rank: json.load(open(p))["losses"] for rank, p in enumerate(inspects)}
    if got != want:
        fail("rank losses differ from tvis inspect of each rank file", {"got": got, "want": want})
    if want[0] == want[1]:
        fail("the ranks' losses are equal: each rank should train on its own data", want)


def after_values(run_path, param, step):
    from tvis._read import load
    run = load(run_path)
    for o in run.optimizer_steps:
        if o["step"] == step:
            for p in o["params"]:
                if p["name"] == param:
                    return run.values(p["after"]).double().flatten()
    fail(f"{run_path}: no {param} at step {step}")


def weights(state, run0, run1, param, step):
    v = load_state(state)["view"]
    a = v["across_ranks"]
    if a is None or a["state"] != "ready" or a["param"] != param or a["step"] != int(step) or a["tensor"] != "after":
        fail("across_ranks not ready for the parameter", a)
    x, y = after_values(run0, param, int(step)), after_values(run1, param, int(step))
    want = float((x - y).abs().max())
    if not a["comparable"] or a["max_abs_difference"] != want:
        fail(f"largest |difference| {a['max_abs_difference']} != {want} (the weights after the step, read by tvis._read)", a)
    if a["differing"] != int((x != y).sum()) or a["elements"] != x.numel():
        fail("differing / elements", a)
    print(f"{param} step {step}: largest |difference| across ranks {a['max_abs_difference']} ({a['differing']} of {a['elements']} differ)")


def runs(state, name, ranks):
    listed = load_state(state)["runs"]
    mine = [r for r in listed if r["name"] == name]
    if len(mine) != 1 or mine[0]["ranks"] != int(ranks):
        fail(f"{name} should be listed once with {ranks} ranks", listed)


if __name__ == "__main__":
    {"picker": picker, "losses": losses, "weights": weights, "runs": runs}[sys.argv[1]](*sys.argv[2:])
