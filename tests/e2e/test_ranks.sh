#!/usr/bin/env bash
# A distributed run in both viewers: a real 2-rank DDP launch on CPU/gloo
# (`tvis run --nproc-per-node 2` over tests/recorder/scripts/ddp_train.py)
# opened in tvis-view under Xvfb and through `tvis open` in headless
# Chromium, locally and through the remote agent over a real sshd. Checked against the rank files themselves (tvis inspect --json
# of each, the recorder's reader for the weights): one run with a rank
# picker (rank K of 2, --rank / ?rank=, any rank file opens the whole run),
# each rank's loss curve equal to its file's losses, the weight after every
# step identical across ranks (largest |difference| 0), and, so that the check
# can fail, a copy of the run whose rank1.tvis comes from a launch with other
# initial weights: the exact non-zero difference. Screenshots land in $OUT.
#
# Needs: xvfb-run, $BIN/tvis-view, a tvis that records ($TVIS_E2E_TVIS, else
# $BIN/tvis) and build/venv/bin/python ($TVIS_TEST_PYTHON) with torch; the browser half also chromium
# and $WEB/viewer.html (skipped without chromium).
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
TVIS="${TVIS_E2E_TVIS:-$BIN/tvis}"
[ -x "$TVIS" ] || fail "$TVIS missing (set TVIS_E2E_TVIS to a tvis that records)"
"$TEST_PY" -c 'import torch' 2>/dev/null || fail "$TEST_PY has no torch (run tools/bootstrap)"
HERE="$(cd "$(dirname "$0")" && pwd)"
SCRIPT="$ROOT/tests/recorder/scripts/ddp_train.py"
NATIVE_PY="${TVIS_E2E_NATIVE_PY:-$ROOT/build/native/python}"

record_ddp() {  # record_ddp OUT ARGS...: a 2-rank launch, 3 steps; prints the run folder
  local out="$1" log="$WORK/ddp_$(basename "$1").log"; shift
  (cd "$WORK" && "$TVIS" run --nproc-per-node 2 --steps 3 --out "$out" "$SCRIPT" --steps 6 "$@") >"$log" 2>&1 \
    || fail "tvis run --nproc-per-node 2 failed: $(tail -5 "$log")"
  local folders=("$out"/*/)
  [ "${#folders[@]}" = 1 ] || fail "expected one run folder in $out: ${folders[*]}"
  [ -f "${folders[0]}run.tvis" ] && [ -f "${folders[0]}rank1.tvis" ] || fail "no rank files in ${folders[0]}"
  echo "${folders[0]%/}"
}

view() {  # view NAME RUN ARGS...: tvis-view in its own Xvfb display
  local name="$1" run="$2"; shift 2
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$run" "$@" --size 1400x900 --frames "${FRAMES:-30}" \
    --screenshot "$OUT/$name.png" --state-json "$OUT/$name.json" 2>"$OUT/$name.stderr" \
    || fail "tvis-view ($name) exited $?: $(cat "$OUT/$name.stderr")"
}

check() { PYTHONPATH="$NATIVE_PY:$ROOT/recorder/python" "$TEST_PY" "$HERE/ranks/check_ranks.py" "$@" || fail "check_ranks $*"; }

RUNS="$WORK/runs"
RUN="$(record_ddp "$RUNS")"
NAME="$(basename "$RUN")"
"$TVIS" inspect --json "$RUN/run.tvis" > "$WORK/inspect0.json"
"$TVIS" inspect --json "$RUN/rank1.tvis" > "$WORK/inspect1.json"
PARAMS=(0.weight 0.bias 2.weight 2.bias)

# 1. tvis-view on the run folder: the picker, every rank's losses, zero difference.
view loss "$RUN" --page Loss --step 1
check picker "$OUT/loss.json" 0 2
check losses "$OUT/loss.json" "$WORK/inspect0.json" "$WORK/inspect1.json"
for step in 0 2; do
  for param in "${PARAMS[@]}"; do
    view "weights_${param}_$step" "$RUN" --page Weights --param "$param" --step "$step"
    check weights "$OUT/weights_${param}_$step.json" "$RUN/run.tvis" "$RUN/rank1.tvis" "$param" "$step"
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["view"]["across_ranks"]; sys.exit(0 if a["max_abs_difference"] == 0 and a["differing"] == 0 else 1)' \
      "$OUT/weights_${param}_$step.json" || fail "$param step $step: the ranks' weights after the step differ under DDP"
  done
done

# 2. --rank 1, and a rank file named alone: the whole run, that rank shown.
view rank1 "$RUN" --rank 1 --page Weights --param 2.weight --step 1
check picker "$OUT/rank1.json" 1 2
check weights "$OUT/rank1.json" "$RUN/run.tvis" "$RUN/rank1.tvis" 2.weight 1
view rank1_file "$RUN/rank1.tvis" --page Loss
check picker "$OUT/rank1_file.json" 1 2
check losses "$OUT/rank1_file.json" "$WORK/inspect0.json" "$WORK/inspect1.json"

# 3. A runs folder: the distributed run listed once, with its ranks.
view run_list "$RUNS"
check runs "$OUT/run_list.json" "$NAME" 2

# 4. The check can fail: rank1.tvis replaced by rank 1 of a launch with other
# initial weights (--seed 7): the difference the reader computes, non-zero.
OTHER="$(record_ddp "$WORK/other" --seed 7)"
MIXED="$WORK/mixed/$NAME"
mkdir -p "$MIXED"
cp "$RUN/run.tvis" "$MIXED/run.tvis"
cp "$OTHER/rank1.tvis" "$MIXED/rank1.tvis"
view mixed "$MIXED" --page Weights --param 0.weight --step 1
check weights "$OUT/mixed.json" "$MIXED/run.tvis" "$MIXED/rank1.tvis" 0.weight 1
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["view"]["across_ranks"]; sys.exit(0 if a["max_abs_difference"] > 0 and a["differing"] > 0 else 1)' \
  "$OUT/mixed.json" || fail "a rank with other weights: no difference reported"

# 4b. The Diagnosis page runs the cross-rank checks over every rank file, as
# `tvis diagnose` of the folder does: nothing across the healthy launch's
# ranks, ranks_diverge across the mixed one (the CLI's finding, same step).
diag_view() {  # diag_view NAME RUN: the Diagnosis page's view once every rank's facts are in
  FRAMES=120 view "$1" "$2" --page Diagnosis
  python3 - "$OUT/$1.json" <<'PY' || fail "$1: the Diagnosis page did not read every rank file"
import json, sys
v = json.load(open(sys.argv[1]))["view"]
sys.exit(0 if v["ready"] and v["ranks"]["count"] == 2 and v["ranks"]["read"] == 2 else 1)
PY
}
diag_view diag_healthy "$RUN"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["view"]; sys.exit(0 if v["ranks"]["cross_rank"] == 0 and not any(f["kind"] == "ranks_diverge" for f in v["findings"]) else 1)' \
  "$OUT/diag_healthy.json" || fail "a healthy DDP launch: cross-rank findings on the Diagnosis page"
diag_view diag_mixed "$MIXED"
"$TVIS" diagnose --json "$MIXED" > "$WORK/diag_mixed_cli.json" || true
python3 - "$OUT/diag_mixed.json" "$WORK/diag_mixed_cli.json" <<'PY' || fail "the mixed ranks: the Diagnosis page's ranks_diverge differs from tvis diagnose's"
import json, sys
view = [f for f in json.load(open(sys.argv[1]))["view"]["findings"] if f["kind"] == "ranks_diverge"]
cli = [f for f in json.load(open(sys.argv[2]))["findings"] if f["kind"] == "ranks_diverge"]
if not view or not cli:
    print("ranks_diverge: page %d, cli %d" % (len(view), len(cli)))
    sys.exit(1)
sys.exit(0 if view[0]["message"] == cli[0]["message"] and view[0]["link"] == cli[0]["link"] else 1)
PY

# 5. The browser through tvis open: the run list, the picker, the same figures.
command -v chromium >/dev/null || skip "browser half: chromium not installed (the tvis-view half passed)"
[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap)"
"$(dirname "$0")/install_playwright.sh" || skip "playwright-core could not be installed from npm"
export NODE_PATH="$(dirname "$0")/node_modules"
# open_and_check PREFIX ARGS...: `tvis open --no-browser ARGS` in the
# background, the browser checks on its URL, then check_ranks on the states.
open_and_check() {
  local prefix="$1"; shift
  TVIS_WEB_DIR="$WEB" "$BIN/tvis" open --no-browser "$@" > "$WORK/$prefix.out" 2> "$WORK/$prefix.err" &
  local pid=$! i
  PIDS+=($pid)
  for i in $(seq 1 300); do
    [ -s "$WORK/$prefix.out" ] && break
    kill -0 "$pid" 2>/dev/null || fail "tvis open $* exited: $(cat "$WORK/$prefix.err")"
    sleep 0.1
  done
  local url
  url="$(head -1 "$WORK/$prefix.out")"
  [[ "$url" =~ ^http://127\.0\.0\.1:[0-9]+/\?token= ]] || fail "tvis open printed no URL: $(cat "$WORK/$prefix.err")"
  TVIS_RANKS_FOLDER="${TVIS_RANKS_FOLDER:-}" TVIS_RANKS_TWO="${TVIS_RANKS_TWO:-}" TVIS_RANKS_URL="$url" TVIS_RANKS_NAME="$NAME" TVIS_RANKS_PARAM=2.weight TVIS_RANKS_OUT="$OUT" TVIS_RANKS_PREFIX="$prefix" \
    node "$HERE/ranks/ranks_browser.mjs" || fail "browser checks ($prefix)"
  check picker "$OUT/${prefix}_loss.json" 0 2
  check losses "$OUT/${prefix}_loss.json" "$WORK/inspect0.json" "$WORK/inspect1.json"
  check weights "$OUT/${prefix}_weights.json" "$RUN/run.tvis" "$RUN/rank1.tvis" 2.weight 1
  check picker "$OUT/${prefix}_rank1.json" 1 2
  if [ "$prefix" = remote ]; then  # the bytes came through the agent
    curl -s "${url%%/\?token=*}/api/stats?token=${url##*token=}" | python3 -c 'import json,sys; a=json.load(sys.stdin).get("agent"); sys.exit(0 if a and a["requests"] > 0 and a["bytes_received"] > 0 else 1)' \
      || fail "tvis open over ssh: the agent served nothing"
  fi
  kill "$pid"
}
mkdir -p "$WORK/two"
cp -r "$RUN" "$OTHER" "$WORK/two/"
# The folder input gets a copy of the runs folder with the launch's claim
# link made a real hidden folder (cp -L): the page must still see one run.
# (Chromium, given the folder with the symlink itself, handed the page no
# files at all in about 1 pick in 4 on this machine.)
cp -rL "$RUNS" "$WORK/picked"
ls -A "$WORK/picked" | grep -q '^\.launch-' || fail "the runs folder has no hidden .launch- claim to leave out"
TVIS_RANKS_FOLDER="$WORK/picked" TVIS_RANKS_TWO="$WORK/two" open_and_check browser "$RUNS"

# 6. The same through the remote agent (a real sshd on 127.0.0.1): rank
# files are read by range over ssh like run.tvis.
[ -x /usr/sbin/sshd ] || skip "remote half: openssh-server not installed (the local halves passed)"
source "$HERE/sshd.sh"
ssh_setup
TGT_PORT=$(free_port); start_sshd tgt "$TGT_PORT"
open_and_check remote --ssh-config "$SSH_CONFIG" --remote-tvis "$BIN/tvis" "tgt:$RUNS"
echo "ranks e2e: ok (screenshots in $OUT)"
