"""Compares the Loss and Weights pages' state().view (tvis-view --state-json)
with what the training script saved for itself (reference.py), exactly.

    check_pages.py loss REF.pt VIEW.json STEP            classifier: losses, worst, confusion
    check_pages.py lm REF.pt VIEW.json STEP ROW          language model: losses, worst, tokens of ROW
    check_pages.py weights REF.pt VIEW.json STEP PARAM SHOW
    check_pages.py backwards REF.pt VIEW.json            every backward's (step, value), in order
    check_pages.py explains VIEW.json KEY TEXT           view[KEY] is a string holding TEXT
    check_pages.py optimizer REF.pt VIEW.json CLASS [LR_KEY]
                                                         Weights: view.optimizer is CLASS ("" for a
                                                         hand-written update); hyper.lr is repr of
                                                         REF["lr"] (REF["lr"][LR_KEY]); none for ""
    check_pages.py custom REF.pt VIEW.json STEP          custom_loss.py: value, call or its absence,
                                                         the "not available" text

Exit 0 when equal; else prints the first difference and exits 1.
"""
import json
import sys

import torch

import reference as R


def fail(msg):
    print("check_pages: " + msg, file=sys.stderr)
    sys.exit(1)


def same(what, got, want):
    if got != want:
        fail("%s differ:\n  page:   %s\n  script: %s" % (what, json.dumps(got)[:600], json.dumps(want)[:600]))


def view_of(path):
    state = json.load(open(path))
    if state.get("errors"):
        fail("%s: errors shown: %s" % (path, state["errors"]))
    return state["view"]


def main():
    kind = sys.argv[1]
    if kind == "explains":
        v = view_of(sys.argv[2])
        key, text = sys.argv[3], sys.argv[4]
        got = v.get(key)
        if not isinstance(got, str) or text not in got:
            fail("view[%r] = %r does not say %r" % (key, got, text))
        return
    ref = torch.load(sys.argv[2])
    v = view_of(sys.argv[3])
    if kind == "backwards":
        # every backward()'s value in call order; how they group into steps
        # is the recorder's rule (one step per optimizer.step(), or per
        # iteration), so only "some step holds several" is checked here
        same("losses", v["losses"], ref["backwards"])
        same("backwards' values", [b["value"] for b in v["backwards"]], ref["backwards"])
        steps = [b["step"] for b in v["backwards"]]
        if steps != sorted(steps) or len(set(steps)) == len(steps):
            fail("no step holds several backward() calls: %s" % steps)
        return
    if kind == "optimizer":
        cls = sys.argv[4]
        same("optimizer", v["optimizer"], cls)
        lr = ref["lr"][sys.argv[5]] if len(sys.argv) > 5 else ref["lr"]
        # the recorder keeps each hyper-parameter as Python's repr
        same("hyper", v["hyper"].get("lr") if cls else v["hyper"], repr(lr) if cls else {})
        return
    step = int(sys.argv[4])
    same("step", v["step"], step)
    if kind in ("loss", "lm"):
        same("losses", v["losses"], ref["losses"])
        same("worst", v["worst"], R.worst_first(ref["samples"][step]))
    if kind == "loss":
        n = len(v["confusion"] or [])
        conf = [[0] * n for _ in range(n)]
        for k in range(ref["steps"]):
            for r in ref["samples"][k]:
                conf[r["target"]][r["predicted"]] += 1
        same("confusion", v["confusion"], conf)
        if n == 0:
            fail("no confusion matrix")
    elif kind == "lm":
        row = int(sys.argv[5])
        same("tokens", v["tokens"], {"step": step, "row": row, "losses": ref["tokens"][step][row],
                                     "labels": ref["token_labels"][step][row]})
        same("confusion", v["confusion"], None)
    elif kind == "weights":
        param, show = sys.argv[5], sys.argv[6]
        want = ref["params"][step][param]
        same("param", v["param"], param)
        same("show", v["show"], show)
        same("shape", v["shape"], want["shape"])
        same("stats of %s %s at step %d" % (param, show, step), v["stats"], want[show])
        same("update_ratio", v["update_ratio"], want["update_ratio"])
    elif kind == "custom":
        check_custom(ref, v, step)
    else:
        fail("unknown check " + kind)


def check_custom(ref, v, step):
    """custom_loss.py's run: the value as the script computed it; mse: no
    call, no source line, the page says the call is not available; ce_reg:
    the cross_entropy call at the script's line, its per-sample rows, and
    the page says the loss is more than the call's reduction."""
    same("losses", v["losses"], ref["losses"])
    notes = v["not_available"]
    if ref["kind"] == "mse":
        same("call", v["call"], "")
        same("outer", v["outer"], "MeanBackward0")
        same("source", v["source"], None)
        same("worst", v["worst"], [])
        same("analysis", v["analysis"], "unavailable")
        if not (len(notes) == 1 and notes[0].startswith("Not available: the loss call.") and "MeanBackward0" in notes[0]):
            fail("mse: not_available = %r" % notes)
        if not v["reduction_words"].startswith("not available:"):
            fail("mse: reduction_words = %r" % v["reduction_words"])
        return
    same("call", v["call"], "torch.nn.functional.cross_entropy")
    same("outer", v["outer"], "AddBackward0")
    src = v["source"] or ""
    if not src.endswith("custom_loss.py:%d" % ref["ce_line"]):
        fail("ce_reg: source %r is not custom_loss.py:%d" % (src, ref["ce_line"]))
    same("worst", v["worst"], R.worst_first(ref["samples"][step]))
    if not (len(notes) == 1 and "composite loss" in notes[0] and "AddBackward0" in notes[0]):
        fail("ce_reg: not_available = %r" % notes)
    if "not this reduction alone" not in v["reduction_words"]:
        fail("ce_reg: reduction_words = %r" % v["reduction_words"])


if __name__ == "__main__":
    main()
