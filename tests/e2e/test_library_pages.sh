#!/usr/bin/env bash
# Replay, Loss and Weights in tvis-view under Xvfb on runs of the loops the
# libraries drive (tests/loops/scripts): the Hugging Face Trainer with
# gradient accumulation, Lightning's closure, a GradScaler that skips a step
# and accumulation by hand. state().view is checked against what each
# script printed (library_pages/check_library_pages.py); screenshots land in
# $OUT. Newest torch only (the libraries live in build/venv).
#
# Needs: xvfb-run, $BIN/tvis-view, $BIN/tvis, build/venv/bin/python
# ($TVIS_TEST_PYTHON) with transformers and lightning.
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
"$TEST_PY" -c 'import transformers, lightning' 2>/dev/null || fail "$TEST_PY lacks transformers/lightning (tools/bootstrap)"
LOOPS="$ROOT/tests/loops/scripts"
CHECK="$ROOT/tests/e2e/library_pages/check_library_pages.py"

record() {  # record NAME SCRIPT ARGS...: tvis run --steps 3 (the script asked for 5); prints run.tvis
  local name="$1" script="$2"; shift 2
  (cd "$WORK" && "$BIN/tvis" run --steps 3 --out "$WORK/runs/$name" "$LOOPS/$script" --steps 5 "$@") \
    >"$WORK/$name.out" 2>"$WORK/$name.err" || fail "tvis run $name failed: $(tail -5 "$WORK/$name.err")"
  grep -q "^library " "$WORK/$name.out" || fail "$name printed no library line"
  echo "$name: $(grep "^library " "$WORK/$name.out")" >&2
  sed -n 's/^tvis run: recorded //p' "$WORK/$name.out" | tail -1
}

view() {  # view NAME RUN ARGS...
  local name="$1" run="$2"; shift 2
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$run" "$@" --size 1400x900 --frames 24 \
    --screenshot "$OUT/$name.png" --state-json "$OUT/$name.json" 2>"$OUT/$name.stderr" \
    || fail "tvis-view ($name) exited $?: $(cat "$OUT/$name.stderr")"
}

check() { "$TEST_PY" "$CHECK" "$@" || fail "check $*"; }

# 1. Hugging Face Trainer, GPT-2-shaped, gradient_accumulation_steps=4.
HF="$(record hf hf_gpt2_trainer.py --out "$WORK/hf_out")"
view hf_loss_1 "$HF" --page Loss --step 1
check micro_batches "$OUT/hf_loss_1.json" "$WORK/hf.out" 1 4
view hf_replay_1 "$HF" --page Replay --step 1
check replay_phases "$OUT/hf_replay_1.json" 1
view hf_weights_1 "$HF" --page Weights --step 1 --param transformer.h.0.attn.c_attn.weight --show update
check weights "$OUT/hf_weights_1.json" 1 transformer.h.0.attn.c_attn.weight AdamW updated 0

# 2. Lightning, automatic optimization: the closure's gradients are the step's.
PL="$(record lightning lightning_auto.py)"
view pl_replay_2 "$PL" --page Replay --step 2
check replay_phases "$OUT/pl_replay_2.json" 2
view pl_weights_2 "$PL" --page Weights --step 2 --param head.weight --show update
check weights "$OUT/pl_weights_2.json" 2 head.weight SGD updated 0
view pl_loss_2 "$PL" --page Loss --step 2
check micro_batches "$OUT/pl_loss_2.json" "$WORK/lightning.out" 2 1

# 3. GradScaler: step 0 skipped (scale 2^127), then scale 2^17.
AMP="$(record amp amp_scaler.py)"
view amp_weights_0 "$AMP" --page Weights --step 0 --param 4.weight --show update
check weights "$OUT/amp_weights_0.json" 0 4.weight SGD skipped 1.7014118346046923e+38
view amp_weights_1 "$AMP" --page Weights --step 1 --param 4.weight --show update
check weights "$OUT/amp_weights_1.json" 1 4.weight SGD updated 131072

# 4. Accumulation by hand: four losses divided by 4, one Adam step.
ACC="$(record accumulate accumulate_by_hand.py)"
view acc_loss_1 "$ACC" --page Loss --step 1
check micro_batches "$OUT/acc_loss_1.json" "$WORK/accumulate.out" 1 4 0.25
echo "library pages: ok"
