"""Checks Replay's layer view against the script's own tensors.

    check_layer.py RUN.tvis SAVED.pt TVIS_VIEW OUT_DIR

SAVED.pt is what followed_activation.py saved with forward hooks and
torch.save: per step and module the first rows of the output and of
dL/d(output), and the output's statistics. For positions (step, phase,
module, sample) this opens `tvis-view RUN --page Replay --step .. --phase ..
--module .. --sample .. --state-json` and checks state().view:
  - the position is the one asked for, and LAYER names it;
  - LAYER.map == mean over channels of |x[row]| (H x W), computed here;
  - LAYER.neurons_order == channels sorted by mean |x[row, c]|, largest
    first (ties in index order), computed here;
  - LAYER.stats.activation (forward) / LAYER.stats.gradient (backward) ==
    the script's statistics of the whole output / dL/d(output);
  - forward: the diagram colours the call by the followed sample's
    mean |x[row]| (view.diagram.values[event]), its legend says so.
Prints one line per position; exits 1 on the first mismatch."""
import json
import os
import subprocess
import sys

import torch

RUN, SAVED, VIEW, OUT = sys.argv[1:5]
saved = torch.load(SAVED)
os.makedirs(OUT, exist_ok=True)

POSITIONS = [  # (step, phase, module, sample)
    (0, "forward", "stem", 0),
    (0, "forward", "blocks.0.conv", 1),
    (1, "forward", "blocks.1.act", 2),
    (2, "forward", "blocks.0.act", 3),
    (2, "forward", "head", 0),
    (0, "backward", "stem", 0),
    (1, "backward", "blocks.1.conv", 1),
    (2, "backward", "blocks.0.conv", 2),
]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def close(a, b, rtol=1e-5, atol=1e-7):
    return abs(a - b) <= atol + rtol * abs(b)


def order_ok(got, strength):
    """got is strength sorted descending; swaps allowed only between values
    equal to float rounding (independent sums differ in the last bits)."""
    want = sorted(range(len(strength)), key=lambda c: (-strength[c], c))
    if got == want:
        return True
    if sorted(got) != list(range(len(strength))):
        return False
    return all(strength[got[i]] >= strength[got[i + 1]] - 1e-9 * max(1.0, abs(strength[got[i]]))
               for i in range(len(got) - 1))


for step, phase, module, sample in POSITIONS:
    state_file = os.path.join(OUT, "state_%d_%s_%s_%d.json" % (step, phase, module, sample))
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", VIEW, RUN, "--page", "Replay", "--step", str(step),
           "--phase", phase, "--module", module, "--sample", str(sample), "--frames", "12", "--size", "1400x900",
           "--state-json", state_file]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("tvis-view exited %d: %s" % (r.returncode, r.stderr[-500:]))
    s = json.load(open(state_file))
    v = s["view"]
    where = "step %d %s %s sample %d" % (step, phase, module, sample)
    if s["page"] != "Replay":
        fail("%s: page %s" % (where, s["page"]))
    if (v["step"], v["phase"], v["module"], v["sample"]) != (step, phase, module, sample):
        fail("%s: view is at %s" % (where, {k: v[k] for k in ("step", "phase", "module", "sample")}))
    L = v["layer"]
    if not L or L["module"] != module or L["step"] != step or L["sample"] != sample:
        fail("%s: LAYER %s" % (where, L))
    if L["of"] != ("gradient" if phase == "backward" else "activation"):
        fail("%s: LAYER.of %s" % (where, L["of"]))
    row = L["row"]
    table = saved["gradient" if phase == "backward" else "activation"][step]
    if module not in table:
        fail("%s: the script kept no %s for it" % (where, L["of"]))
    kept = table[module]
    if row < 0 or row >= kept.shape[0]:
        fail("%s: row %d outside the rows the script kept" % (where, row))
    x = kept[row].double()
    if x.dim() == 3:  # C, H, W
        want_map = x.abs().mean(dim=0)
        got_map = L["map"]
        if got_map is None or len(got_map) != want_map.shape[0] or len(got_map[0]) != want_map.shape[1]:
            fail("%s: map shape %s, want %s" % (where, None if got_map is None else (len(got_map), len(got_map[0])),
                                                 tuple(want_map.shape)))
        worst = max(abs(got_map[i][j] - want_map[i, j].item()) for i in range(want_map.shape[0])
                    for j in range(want_map.shape[1]))
        if worst > 1e-6 * max(1.0, want_map.abs().max().item()):
            fail("%s: map differs by %g" % (where, worst))
        strength = x.abs().mean(dim=(1, 2)).tolist()
    else:  # a vector: no map, neurons are its values
        if L["map"] is not None:
            fail("%s: a vector has a map" % where)
        strength = x.abs().tolist()
    if not order_ok(L["neurons_order"], strength):
        fail("%s: neurons_order %s, want %s" % (where, L["neurons_order"],
                                                 sorted(range(len(strength)), key=lambda c: (-strength[c], c))))
    of = "activation" if phase == "forward" else "gradient"
    want = saved["stats" if phase == "forward" else "grad_stats"][step][module]
    got = L["stats"][of]
    if got is None:
        fail("%s: stats.%s not shown" % (where, of))
    for k in ("mean", "std", "min", "max", "mean_abs", "l2"):
        # float32 sums in the recorder: a mean near 0 is exact only to a fraction of the scale
        if not close(got[k], want[k], rtol=1e-4, atol=1e-6 if of == "activation" else 1e-5 * want["mean_abs"]):
            fail("%s: stats.%s.%s %r, script %r" % (where, of, k, got[k], want[k]))
    if phase == "forward":
        d = v["diagram"]
        if d["legend"] != "activation: mean |output| of sample %d" % sample:
            fail("%s: diagram legend %r" % (where, d["legend"]))
        got_c = d["values"].get(str(v["event"]))
        want_c = x.abs().mean().item()
        if got_c is None or not close(got_c, want_c, rtol=1e-6, atol=1e-9):
            fail("%s: diagram colour %r, script's mean |x[row]| %r" % (where, got_c, want_c))
    print("ok  %-38s row %d  map %s  neurons %d" % (where, row, "none" if L["map"] is None else
                                                  "%dx%d" % (len(L["map"]), len(L["map"][0])), len(strength)))
print("layer views: all %d positions match the script's own tensors" % len(POSITIONS))
