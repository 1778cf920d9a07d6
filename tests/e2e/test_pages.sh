#!/usr/bin/env bash
# The Loss and Weights pages in tvis-view under Xvfb over real recordings of
# the training scripts in tests/e2e/pages/. Each script saves (torch.save)
# what the pages must show, computed by itself (pages/reference.py); the
# pages' state().view (--state-json) must equal it exactly: the losses, the
# worst-first samples, the confusion counts, a language model's token
# losses, weight / gradient / update statistics and update ratios. Then the
# pages on a hand-written update, a two-optimizer GAN (several backward()s a
# step) and a killed run: no crash, no error, and what is missing explained
# in place. Screenshots of every view land in $OUT.
#
# Needs: xvfb-run, $BIN/tvis-view, a tvis that records ($TVIS_E2E_TVIS, else
# $BIN/tvis) and build/venv/bin/python ($TVIS_TEST_PYTHON) with torch.
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
TVIS="${TVIS_E2E_TVIS:-$BIN/tvis}"
[ -x "$TVIS" ] || fail "$TVIS missing (set TVIS_E2E_TVIS to a tvis that records)"
"$TEST_PY" -c 'import torch' 2>/dev/null || fail "$TEST_PY has no torch (run tools/bootstrap)"
PAGES="$ROOT/tests/e2e/pages"

record() {  # record NAME [ARG]: runs pages/NAME.py [ARG] under tvis run --steps 3; prints run.tvis
  local name="$1${2:+_$2}" log="$WORK/rec_$1${2:+_$2}.log"
  "$TVIS" run --steps 3 --out "$WORK/runs/$name" "$PAGES/$1.py" "$WORK/ref_$name.pt" ${2:+"$2"} >"$log" 2>&1 \
    || fail "tvis run $name failed: $(tail -5 "$log")"
  sed -n 's/^tvis run: recorded //p' "$log" | tail -1
}

view() {  # view NAME RUN ARGS...: tvis-view in its own Xvfb display
  local name="$1" run="$2"; shift 2
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$run" "$@" --size 1400x900 --frames 24 \
    --screenshot "$OUT/$name.png" --state-json "$OUT/$name.json" 2>"$OUT/$name.stderr" \
    || fail "tvis-view ($name) exited $?: $(cat "$OUT/$name.stderr")"
}

check() { PYTHONPATH="$PAGES" "$TEST_PY" "$PAGES/check_pages.py" "$@" || fail "check_pages $*"; }

# 1. A classifier: losses, every sample worst first, confusion, Δw statistics.
CLS="$(record classifier)"
for step in 0 2; do
  view "cls_loss_$step" "$CLS" --page Loss --step "$step"
  check loss "$WORK/ref_classifier.pt" "$OUT/cls_loss_$step.json" "$step"
done
check explains "$OUT/cls_loss_0.json" reduction_words "mean over 24 samples of −log p(target)"  # classifier.py's batch
for param in conv.weight conv.bias fc.weight fc.bias; do
  for show in weight grad update; do
    view "cls_${param}_$show" "$CLS" --page Weights --step 1 --param "$param" --show "$show"
    check weights "$WORK/ref_classifier.pt" "$OUT/cls_${param}_$show.json" 1 "$param" "$show"
  done
done
view cls_fc_update_2 "$CLS" --page Weights --step 2 --param fc.weight --show update
check weights "$WORK/ref_classifier.pt" "$OUT/cls_fc_update_2.json" 2 fc.weight update
check optimizer "$WORK/ref_classifier.pt" "$OUT/cls_fc_update_2.json" SGD

# 2. A language model: token losses with padding, worst tokens, no confusion.
LM="$(record lm)"
view lm_loss_1 "$LM" --page Loss --step 1
check lm "$WORK/ref_lm.pt" "$OUT/lm_loss_1.json" 1 0
python3 - "$OUT/lm_loss_1.json" <<'PY' || fail "lm: padding not null in tokens"
import json, sys
t = json.load(open(sys.argv[1]))["view"]["tokens"]["losses"]
sys.exit(0 if None in t and any(x is not None for x in t) else 1)
PY

# 3. No torch.optim: a hand-written update is a step; Δw as recorded.
MAN="$(record manual_update)"
view man_update "$MAN" --page Weights --step 1 --param 0.weight --show update
check weights "$WORK/ref_manual_update.pt" "$OUT/man_update.json" 1 0.weight update
check optimizer "$WORK/ref_manual_update.pt" "$OUT/man_update.json" ""  # no optimizer, no hyper-parameters
view man_loss "$MAN" --page Loss --step 1
PYTHONPATH="$PAGES" "$TEST_PY" - "$WORK/ref_manual_update.pt" "$OUT/man_loss.json" <<'PY' || fail "manual: losses differ"
import json, sys, torch
sys.exit(0 if json.load(open(sys.argv[2]))["view"]["losses"] == torch.load(sys.argv[1])["losses"] else 1)
PY

# 4. Two optimizers (a GAN): every backward of a step on the Loss page; on
# Weights one D parameter (Adam) and one G parameter (SGD), each with its
# own optimizer, lr and Δw / weight / gradient statistics as the script
# computed them around that optimizer's step.
GAN="$(record two_optimizers)"
view gan_loss "$GAN" --page Loss --step 0
check backwards "$WORK/ref_two_optimizers.pt" "$OUT/gan_loss.json"
check explains "$OUT/gan_loss.json" why "binary_cross_entropy_with_logits is not a classification loss"
view gan_weights "$GAN" --page Weights --step 1
python3 - "$OUT/gan_weights.json" <<'PY' || fail "gan: $(cat "$OUT/gan_weights.json")"
import json, sys
v = json.load(open(sys.argv[1]))["view"]
# the first parameter shown, with its own optimizer's figures; the step's
# optimizers are Adam (D) and / or SGD (G), as the recorder groups them
ok = v["present"] and v["stats"] is not None and v["optimizer"] in ("Adam", "SGD") \
    and v["optimizers"] and set(v["optimizers"]) <= {"Adam", "SGD"}
sys.exit(0 if ok else 1)
PY
for spec in D.0.weight:Adam:D G.2.bias:SGD:G; do
  IFS=: read -r param cls who <<<"$spec"
  for show in weight grad update; do
    view "gan_${param}_$show" "$GAN" --page Weights --step 1 --param "$param" --show "$show"
    check weights "$WORK/ref_two_optimizers.pt" "$OUT/gan_${param}_$show.json" 1 "$param" "$show"
  done
  check optimizer "$WORK/ref_two_optimizers.pt" "$OUT/gan_${param}_update.json" "$cls" "$who"
done

# 5. A killed run (tests/recorder/killed_recording.py: SIGKILL in its third
# step, once the first two are on disk): those two steps are shown, no error.
KILLED="$("$TEST_PY" "$ROOT/tests/recorder/killed_recording.py" "$TVIS" "$WORK/runs/killed")" || fail "could not record the killed run"
view killed_loss "$KILLED" --page Loss --step 0
view killed_weights "$KILLED" --page Weights --step 0 --show update
python3 - "$OUT/killed_loss.json" "$OUT/killed_weights.json" <<'PY' || fail "killed run: $(cat "$OUT/killed_loss.json")"
import json, sys
loss, w = (json.load(open(p)) for p in sys.argv[1:3])
assert loss["errors"] == [] and w["errors"] == [], (loss["errors"], w["errors"])
assert loss["run"]["steps"] == 2 and len(loss["view"]["losses"]) == 2, (loss["run"], loss["view"])
assert len(loss["view"]["worst"]) > 0 and loss["view"]["confusion"], loss["view"]
assert w["view"]["present"] and w["view"]["stats"] is not None, w["view"]
PY
# 6. Losses no single recognised call computed (pages/custom_loss.py): a
# hand-written regression loss shows its value and says its call is not
# available (no source line of another event); cross-entropy plus a
# regulariser shows the cross_entropy call at its line and says the value is
# more than that call's reduction.
for kind in mse ce_reg; do
  RUN="$(record custom_loss "$kind")"
  view "custom_${kind}_loss" "$RUN" --page Loss --step 1
  check custom "$WORK/ref_custom_loss_$kind.pt" "$OUT/custom_${kind}_loss.json" 1
done
# 6. Replay on the same degraded runs (none builds its batches with a
# DataLoader): at step 1's data and optimizer phases each lands where it can,
# shows no error, and says in place what is missing and why (view.missing,
# view.notes).
for run in "man:$MAN" "lm:$LM" "killed:$KILLED"; do
  name="${run%%:*}"
  for phase in data optimizer; do
    view "${name}_replay_$phase" "${run#*:}" --page Replay --step 1 --phase "$phase"
  done
  python3 - "$name" "$OUT/${name}_replay_data.json" "$OUT/${name}_replay_optimizer.json" <<'PY' || fail "replay on $name: $(cat "$OUT/${name}_replay_data.json")"
import json, sys
name, data, opt = sys.argv[1], *(json.load(open(p)) for p in sys.argv[2:4])
for s in (data, opt):
    assert s["page"] == "Replay" and s["errors"] == [], (s["page"], s["errors"])
    assert s["view"]["step"] == 1 and not s["view"]["loading"], s["view"]
    # no DataLoader: no data phase, and the reason
    assert "DataLoader" in s["view"]["missing"].get("data", ""), s["view"]["missing"]
    early = [n for n in s["view"]["notes"] if n.startswith("The run ended early")]
    assert bool(early) == (name == "killed"), s["view"]["notes"]
# data asked for, none recorded: the step's first phase instead
assert data["view"]["phase"] == "forward", data["view"]["phase"]
assert opt["view"]["phase"] == "optimizer", opt["view"]["phase"]
hand = [n for n in opt["view"]["notes"] if n.startswith("A hand-written update")]
assert bool(hand) == (name == "man"), opt["view"]["notes"]  # lm: AdamW, killed: SGD
print("replay %s: data -> %s (%s); optimizer notes %s" % (name, data["view"]["phase"], data["view"]["missing"]["data"],
                                                         opt["view"]["notes"]))
PY
done
echo "pages e2e: ok (screenshots in $OUT)"
