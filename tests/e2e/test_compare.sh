#!/usr/bin/env bash
# The Compare page (two runs side by side) in both shells, over real
# recordings of tests/recorder/scripts/diff_train.py: A, A again (the same
# script twice), A with fc2's initial weights scaled by 1.001, and a run of
# another model (examples/digits_cnn.py).
#   - tvis-view A --compare FC2 (under Xvfb): the page names tvis diff's first
#     divergence (fc2.weight at step 0), shows it with a non-zero max |A - B|,
#     and fc2's activation at step 0 differs too (--module fc2 --show activation);
#   - tvis-view A --compare A2: identical, first null, max |A - B| = 0;
#   - a second run that is missing, or of another model, is a message, not a crash;
#   - viewer.html through `tvis open` (headless Chromium): ?url=A&url2=FC2 and
#     ?url=A&url2=A2 report the same, and the run list's "compare with newest"
#     link of run A opens FC2 beside it (compare/compare_browser.mjs).
# Screenshots (look at them): $OUT/compare_window_fc2.png,
# $OUT/compare_window_same.png, $OUT/compare_browser_fc2.png, $OUT/compare_browser_same.png.
#
# Needs: xvfb-run, $BIN/tvis-view, a tvis that records ($TVIS_E2E_TVIS, else
# $BIN/tvis), build/venv's torch, $WEB/viewer.html and the e2e node modules.
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
TVIS="${TVIS_E2E_TVIS:-$BIN/tvis}"
[ -x "$TVIS" ] || fail "$TVIS missing (set TVIS_E2E_TVIS to a tvis that records)"
"$TEST_PY" -c 'import torch' 2>/dev/null || fail "$TEST_PY has no torch (run tools/bootstrap)"
SCRIPT="$ROOT/tests/recorder/scripts/diff_train.py"

record() {  # record LOG SCRIPT ARGS...: prints the recorded run.tvis
  local log="$WORK/$1.log"
  shift
  "$TVIS" run --steps 3 --out "$WORK/runs" "$@" >"$log" 2>&1 || fail "tvis run $*: $(tail -5 "$log")"
  sed -n 's/^tvis run: recorded //p' "$log" | tail -1
}
OTHER="$(record other "$ROOT/examples/digits_cnn.py" --epochs 1)"
A="$(record a "$SCRIPT" --steps 5)"
A2="$(record a2 "$SCRIPT" --steps 5)"
FC2="$(record fc2 "$SCRIPT" --steps 5 --perturb fc2)"  # the newest: tvis open's run list compares the others with it
for f in "$A" "$A2" "$FC2" "$OTHER"; do [ -f "$f" ] || fail "no run recorded: '$f'"; done

view() {  # view NAME RUN ARGS...: tvis-view RUN ARGS under Xvfb; the state in $WORK/NAME.json
  local name="$1" run="$2"
  shift 2
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$run" --size 1400x900 --frames 40 \
    --state-json "$WORK/$name.json" "$@" 2> "$WORK/$name.err" || fail "tvis-view ($name) exited $?: $(cat "$WORK/$name.err")"
}

# --- the native window
view fc2 "$A" --compare "$FC2" --screenshot "$OUT/compare_window_fc2.png"
view fc2_act "$A" --compare "$FC2" --module fc2 --show activation --step 0
view same "$A" --compare "$A2" --screenshot "$OUT/compare_window_same.png"
view missing "$A" --compare "$WORK/no_such_run"
view other "$A" --compare "$OTHER" --screenshot "$OUT/compare_window_other.png"
python3 - "$WORK" <<'PY' || fail "the window's Compare page"
import json, os, sys
w = sys.argv[1]
def state(name):
    s = json.load(open(os.path.join(w, name + ".json")))
    return s, s["view"]

s, v = state("fc2")
assert s["page"] == "Compare" and "Compare" in s["pages"], (s["page"], s["pages"])
assert s["compare"]["status"] == "open" and s["errors"] == [], (s["compare"], s["errors"])
assert v["ready"] and v["identical"] is False and v["problem"] is None, v
first = v["first"]
assert (first["step"], first["module"], first["what"]) == (0, "fc2.weight", "weight"), first
assert first["link"] == "page=Weights&step=0&param=fc2.weight", first
assert (v["step"], v["show"], v["param"], v["module"]) == (0, "weight", "fc2.weight", None), v
assert v["shape"] == [32, 32] and v["max_abs"] > 0 and v["differing"] > 0, v
print("ok   window: first divergence fc2.weight at step 0, max |A - B| = %g" % v["max_abs"])

s, v = state("fc2_act")
assert s["page"] == "Compare" and (v["module"], v["show"], v["step"]) == ("fc2", "activation", 0), v
assert v["max_abs"] > 0 and v["shape"][-1] == 32, v  # fc2 has 32 outputs; the leading rows kept
print("ok   window: fc2's activation at step 0 differs by up to %g" % v["max_abs"])

s, v = state("same")
assert s["page"] == "Compare" and v["ready"] and v["identical"] is True and v["first"] is None, v
assert v["layers"] == [] and v["max_abs"] == 0 and v["differing"] == 0 and v["elements"] > 0, v
assert (v["show"], v["module"]) == ("activation", "Net"), v  # the first module called: the model's output
print("ok   window: the same script twice: identical, max |A - B| = 0 over %d elements" % v["elements"])

s, v = state("missing")
assert s["compare"]["status"] == "failed" and v["status"] == "failed" and v["problem"], (s["compare"], v)
assert any(e.startswith("compared run: ") for e in s["errors"]), s["errors"]
print("ok   window: a missing second run is a message: %s" % s["errors"])

s, v = state("other")
assert s["page"] == "Compare" and v["ready"] and v["problem"].startswith("runs differ in model: "), v
assert v["identical"] is False, v
print("ok   window: another model: %s" % v["problem"])
PY

# --- the browser, through tvis open
command -v chromium >/dev/null || skip "chromium not installed"
"$(dirname "$0")/install_playwright.sh" || skip "playwright-core could not be installed from npm"
[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap)"
export NODE_PATH="$(dirname "$0")/node_modules" TVIS_WEB_DIR="$WEB"
start_tvis_open "$WORK/runs"
rel() { echo "run/$(basename "$(dirname "$1")")/run.tvis"; }
TVIS_CMP_BASE="$BASE/viewer.html?token=$TOKEN" TVIS_CMP_A="$(rel "$A")" TVIS_CMP_A2="$(rel "$A2")" \
  TVIS_CMP_FC2="$(rel "$FC2")" TVIS_CMP_OUT="$OUT" TVIS_CMP_LIST="$URL" TVIS_CMP_A_NAME="$(basename "$(dirname "$A")")" \
  node "$(dirname "$0")/compare/compare_browser.mjs" || fail "the browser's Compare page"
echo "PASS test_compare"
