#!/usr/bin/env bash
# Replay in tvis-view under Xvfb over a real `tvis run` of
# tests/e2e/replay/followed_activation.py, whose forward hooks torch.save the
# followed samples' activations and gradients: the layer view's On image map,
# Neurons order, Stats and the diagram's colours equal the script's own
# (replay/check_layer.py; test_viewer "[replay]" over the run), a vector's
# picked bar gives its value, a followed row past a small --max-elems is kept, and
# one screenshot per phase (data, forward, loss, backward, optimizer) is taken
# through the --page/--step/--phase/--module flags and checked not blank;
# the data phase's stages and a token batch equal the scripts' own data.
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
"$TEST_PY" -c 'import torch, torchvision, PIL' 2>/dev/null || fail "$TEST_PY lacks torch/torchvision/PIL"

"$BIN/tvis" run --steps 3 --out "$WORK/runs" "$ROOT/tests/e2e/replay/followed_activation.py" "$WORK/saved.pt" \
  >"$WORK/record.log" 2>&1 || fail "tvis run failed: $(tail -5 "$WORK/record.log")"
RUN="$(sed -n 's/^tvis run: recorded //p' "$WORK/record.log" | tail -1)"
[ -f "$RUN" ] || fail "no run recorded: $(tail -5 "$WORK/record.log")"

"$TEST_PY" "$ROOT/tests/e2e/replay/check_layer.py" "$RUN" "$WORK/saved.pt" "$BIN/tvis-view" "$WORK/states" \
  || fail "the layer view differs from the script's tensors"

# The head's logits are a vector: Neurons shows labelled bars, and a picked
# bar (the click's command) gives its exact value, the script's own.
xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$RUN" --page Replay --step 2 --phase forward --module head \
  --sample 1 --link layer_tab=Neurons --link layer_neuron=2 --size 1400x900 --frames 12 \
  --screenshot "$OUT/replay_bars.png" --state-json "$OUT/replay_bars.json" 2>"$OUT/replay_bars.stderr" \
  || fail "tvis-view (bars) exited $?: $(cat "$OUT/replay_bars.stderr")"
"$TEST_PY" - "$OUT/replay_bars.json" "$WORK/saved.pt" <<'PY' || fail "the picked bar's value differs: $(cat "$OUT/replay_bars.json")"
import json, sys, torch
L = json.load(open(sys.argv[1]))["view"]["layer"]
want = torch.load(sys.argv[2])["activation"][2]["head"][L["row"], 2].item()
assert L["tab"] == "Neurons" and L["picked_neuron"] == 2, L
assert L["neuron_labels"] == ["ant", "bee", "cat", "dog"], L  # head's output is the loss's logits: bars by class
assert abs(L["picked_value"] - want) <= 1e-6 * max(1.0, abs(want)), (L["picked_value"], want)
PY

# The diagram's colours against the file's own values, headless (test_viewer).
[ -x "$TEST_BIN/test_viewer" ] || fail "$TEST_BIN/test_viewer missing (tools/bootstrap builds it; TVIS_E2E_TEST_BIN names another)"
TVIS_TEST_REPLAY_RUNS="$RUN" "$TEST_BIN/test_viewer" "[replay]" >"$WORK/test_viewer.log" 2>&1 \
  || fail "test_viewer [replay] on $RUN: $(tail -20 "$WORK/test_viewer.log")"

# A small --max-elems, and followed sample 0 at row 6 of step 1 (the
# `repeat` sampler), past --samples' 4 leading rows: the recorder keeps an
# activation's rows up to the last followed one whatever --max-elems says
# (recorder.h), so the layer panel shows the sample's map and the diagram's
# legend is the sample's, not the batch's.
"$BIN/tvis" run --steps 3 --max-elems 2048 --out "$WORK/runs_small" "$ROOT/tests/e2e/replay/followed_activation.py" \
  "$WORK/saved_small.pt" repeat >"$WORK/record_small.log" 2>&1 || fail "tvis run --max-elems failed: $(tail -5 "$WORK/record_small.log")"
SMALL="$(sed -n 's/^tvis run: recorded //p' "$WORK/record_small.log" | tail -1)"
xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$SMALL" --page Replay --step 1 --phase forward \
  --module blocks.0.conv --sample 0 --size 1400x900 --frames 30 \
  --screenshot "$OUT/replay_max_elems.png" --state-json "$OUT/replay_max_elems.json" 2>"$OUT/replay_max_elems.stderr" \
  || fail "tvis-view (--max-elems) exited $?: $(cat "$OUT/replay_max_elems.stderr")"
"$TEST_PY" - "$OUT/replay_max_elems.json" <<'PY' || fail "row 6 of a small --max-elems run not shown: $(cat "$OUT/replay_max_elems.json")"
import json, sys
s = json.load(open(sys.argv[1]))
v, L = s["view"], s["view"]["layer"]
assert s["errors"] == [] and (v["step"], v["module"], L["row"]) == (1, "blocks.0.conv", 6), (v, L)
assert L["map"] and not L.get("problem"), L
legend = v["diagram"]["legend"]
assert "of sample 0" in legend and "--max-elems" not in legend, legend
PY
TVIS_TEST_REPLAY_RUNS="$SMALL" "$TEST_BIN/test_viewer" "[replay]" >"$WORK/test_viewer_small.log" 2>&1 \
  || fail "test_viewer [replay] on $SMALL: $(tail -20 "$WORK/test_viewer_small.log")"

json_get() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(json.dumps(eval("v"+sys.argv[2])))' "$@"; }
for phase in data forward loss backward optimizer; do
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$RUN" --page Replay --step 1 --phase "$phase" \
    --module blocks.1.conv --sample 1 --size 1400x900 --frames 20 \
    --screenshot "$OUT/replay_$phase.png" --state-json "$OUT/replay_$phase.json" 2>"$OUT/replay_$phase.stderr" \
    || fail "tvis-view ($phase) exited $?: $(cat "$OUT/replay_$phase.stderr")"
  [ "$(json_get "$OUT/replay_$phase.json" '["view"]["phase"]')" = "\"$phase\"" ] || fail "$phase: $(cat "$OUT/replay_$phase.json")"
  [ "$(json_get "$OUT/replay_$phase.json" '["errors"]')" = "[]" ] || fail "$phase: errors shown"
  colors=$(identify -format '%k' "$OUT/replay_$phase.png")
  [ "$colors" -gt 50 ] || fail "replay_$phase.png looks blank ($colors colours)"
done
# The data phase against the scripts' own data: the followed sample through
# Resize -> ToTensor -> Normalize (names, arguments, values at each stage),
# and a token batch drawn as strips (replay/check_data.py).
"$TEST_PY" "$ROOT/tests/e2e/replay/check_data.py" pictures "$OUT/replay_data.json" \
  || fail "the data phase differs from followed_activation.py's pipeline"
"$BIN/tvis" run --steps 3 --out "$WORK/runs_tokens" "$ROOT/tests/e2e/replay/token_batches.py" \
  >"$WORK/record_tokens.log" 2>&1 || fail "tvis run token_batches.py failed: $(tail -5 "$WORK/record_tokens.log")"
TOKENS="$(sed -n 's/^tvis run: recorded //p' "$WORK/record_tokens.log" | tail -1)"
xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$TOKENS" --page Replay --step 2 --phase data \
  --size 1400x900 --frames 20 --screenshot "$OUT/replay_tokens.png" --state-json "$OUT/replay_tokens.json" \
  2>"$OUT/replay_tokens.stderr" || fail "tvis-view (tokens) exited $?: $(cat "$OUT/replay_tokens.stderr")"
"$TEST_PY" "$ROOT/tests/e2e/replay/check_data.py" tokens "$OUT/replay_tokens.json" \
  || fail "the token batch differs from token_batches.py's rows"
echo "replay e2e: ok (screenshots in $OUT)"
