#!/usr/bin/env bash
# Replay in tvis-view under Xvfb over a real `tvis run` of
# tests/e2e/replay/followed_activation.py, whose forward hooks torch.save the
# followed samples' activations and gradients: the layer view's On image map,
# Neurons order and Stats equal the script's own (replay/check_layer.py), and
# one screenshot per phase (data, forward, loss, backward, optimizer) is taken
# through the --page/--step/--phase/--module flags and checked not blank.
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
/usr/bin/python3 -c 'import torch, torchvision, PIL' 2>/dev/null || fail "/usr/bin/python3 lacks torch/torchvision/PIL"

"$BIN/tvis" run --steps 3 --out "$WORK/runs" "$ROOT/tests/e2e/replay/followed_activation.py" "$WORK/saved.pt" \
  >"$WORK/record.log" 2>&1 || fail "tvis run failed: $(tail -5 "$WORK/record.log")"
RUN="$(sed -n 's/^tvis run: recorded //p' "$WORK/record.log" | tail -1)"
[ -f "$RUN" ] || fail "no run recorded: $(tail -5 "$WORK/record.log")"

/usr/bin/python3 "$ROOT/tests/e2e/replay/check_layer.py" "$RUN" "$WORK/saved.pt" "$BIN/tvis-view" "$WORK/states" \
  || fail "the layer view differs from the script's tensors"

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
echo "replay e2e: ok (screenshots in $OUT)"
