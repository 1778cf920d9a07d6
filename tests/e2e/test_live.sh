#!/usr/bin/env bash
# Live runs, end to end with real parts only: a real `tvis run` of a slow
# training script (live/slow_train.py: one step every few seconds) is opened
# while it records, in tvis-view under Xvfb (--state-json F --state-every S)
# and in headless Chromium through `tvis open --no-browser` (live/live_browser.mjs),
# locally and, when sshd is installed, over the agent through a real sshd,
# and tvis-view HOST:PATH once more over a link that delays every answer of
# the agent (live/slow_agent.py): no frame may wait for a recheck.
# Checked: each viewer opens the run live with fewer steps than it ends
# with, sees the steps grow without a reload, and ends complete with the
# steps and events `tvis inspect` reads from the finished file, which are the
# steps the script itself printed.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/sshd.sh"
[ -n "${TVIS_E2E_TRACE:-}" ] && set -x
command -v chromium >/dev/null || skip "chromium not installed"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap)"
"$TEST_PY" -c 'import torch' 2>/dev/null || fail "$TEST_PY has no torch (run tools/bootstrap)"
"$(dirname "$0")/install_playwright.sh" || skip "playwright-core could not be installed from npm"
export NODE_PATH="$(dirname "$0")/node_modules"
export TVIS_WEB_DIR="$WEB"
TVIS="$BIN/tvis"
HERE="$(cd "$(dirname "$0")" && pwd)"
STEPS="${TVIS_E2E_LIVE_STEPS:-10}"
PAUSE="${TVIS_E2E_LIVE_PAUSE:-2}"

inspect_field() {  # RUN FIELD: from tvis inspect --json (0 while unreadable)
  "$TVIS" inspect --json "$1" 2>/dev/null | python3 -c 'import json,sys
try: print(json.load(sys.stdin).get(sys.argv[1], 0))
except Exception: print(0)' "$2" || echo 0
}

# start_training RUNS: `tvis run` of the slow script in the background; sets
# TRAIN_PID and RUN (its run.tvis) once its first step is on disk.
start_training() {
  local runs="$1" i
  "$TVIS" run --steps "$STEPS" --out "$runs" "$HERE/live/slow_train.py" "$PAUSE" >"$runs.train.out" 2>"$runs.train.err" &
  TRAIN_PID=$!
  PIDS+=($TRAIN_PID)
  RUN=""
  for i in $(seq 1 600); do
    RUN="$(ls "$runs"/*/run.tvis 2>/dev/null | head -1 || true)"
    [ -n "$RUN" ] && [ "$(inspect_field "$RUN" steps)" -ge 1 ] && break
    kill -0 "$TRAIN_PID" 2>/dev/null || fail "tvis run ended early: $(tail -5 "$runs.train.err")"
    sleep 0.2
  done
  [ -n "$RUN" ] || fail "no run file after 120 s: $(tail -5 "$runs.train.err")"
  [ "$(inspect_field "$RUN" complete)" = False ] || fail "the run was complete before any viewer opened it"
}

# finish_training RUNS: waits for tvis run; checks the finished file against
# the script's own output. Sets WANT_STEPS and WANT_EVENTS.
finish_training() {
  local rc=0
  wait "$TRAIN_PID" || rc=$?
  [ "$rc" = 0 ] || fail "tvis run exited $rc: $(tail -5 "$1.train.err")"
  [ "$(inspect_field "$RUN" complete)" = True ] || fail "the finished run is not complete"
  WANT_STEPS="$(inspect_field "$RUN" steps)"
  WANT_EVENTS="$(inspect_field "$RUN" events)"
  local printed
  printed="$(grep -c '^step [0-9]* loss' "$1.train.out" || true)"
  [ "$WANT_STEPS" = "$STEPS" ] && [ "$printed" = "$STEPS" ] \
    || fail "steps: inspect $WANT_STEPS, the script printed $printed, --steps $STEPS"
}

# start_open LOG ARGS...: tvis open --no-browser ARGS; sets OPEN_PID and URL.
start_open() {
  local log="$1" i; shift
  "$TVIS" open --no-browser "$@" >"$log.out" 2>"$log.err" &
  OPEN_PID=$!
  PIDS+=($OPEN_PID)
  for i in $(seq 1 300); do
    [ -s "$log.out" ] && break
    kill -0 "$OPEN_PID" 2>/dev/null || fail "tvis open $* exited: $(cat "$log.err")"
    sleep 0.1
  done
  URL="$(head -1 "$log.out")"
  [[ "$URL" =~ ^http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{32}$ ]] || fail "first line is not the URL: '$URL'"
}

# check_final NAME JSON: the final state (a browser's, or tvis-view's) against inspect.
check_final() {
  python3 - "$1" "$2" "$WANT_STEPS" "$WANT_EVENTS" <<'PY' || fail "$1: final state"
import json, sys
name, path, steps, events = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = json.load(open(path))
run = d["final"]["run"] if "final" in d else d["run"]
bad = [k for k, want in (("steps", steps), ("events", events), ("complete", True), ("live", False)) if run.get(k) != want]
if bad:
    sys.exit(f"{name}: {bad} differ: {run} (inspect: steps {steps}, events {events})")
print(f"ok   {name}: complete with {steps} steps, {events} events, grew {run['growths']} times")
PY
}

# --- 1. local: tvis-view and the browser watch the same recording ------------------
RUNS="$WORK/runs"
mkdir -p "$RUNS"
start_training "$RUNS"
echo "training: $RUN, $(inspect_field "$RUN" steps) steps on disk"

VIEW_STATE="$OUT/view_state.json"
rm -f "$VIEW_STATE"
xvfb-run -a -s "-screen 0 1600x1000x24" sh -c 'echo $$ > "$0"; exec "$@"' "$WORK/view.pid" \
  "$BIN/tvis-view" "$RUN" --size 1200x800 --state-json "$VIEW_STATE" --state-every 0.5 \
  >"$OUT/view.stdout" 2>"$OUT/view.stderr" &
XVFB_PID=$!
PIDS+=($XVFB_PID)
# tvis-view's steps over time, one line each: STEPS LIVE COMPLETE GROWTHS
( while :; do
    python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["run"]
print(r["steps"], r["live"], r["complete"], r["growths"]) if r else None' "$VIEW_STATE" 2>/dev/null || true
    sleep 0.5
  done ) >"$OUT/view_series.txt" &
POLL_PID=$!
PIDS+=($POLL_PID)

start_open "$WORK/local" "$RUNS"
TVIS_LIVE_URL="$URL" TVIS_LIVE_OUT="$OUT/browser_local.json" node "$HERE/live/live_browser.mjs" \
  || fail "browser (local): $(tail -3 "$WORK/local.err")"
finish_training "$RUNS"
check_final "browser (local)" "$OUT/browser_local.json"

for i in $(seq 1 100); do
  tail -1 "$OUT/view_series.txt" 2>/dev/null | grep -q ' False True ' && break
  sleep 0.2
done
kill -TERM "$(cat "$WORK/view.pid")"
rc=0; wait "$XVFB_PID" || rc=$?
kill "$POLL_PID" 2>/dev/null || true
[ "$rc" = 0 ] || fail "tvis-view exited $rc: $(tail -3 "$OUT/view.stderr")"
check_final "tvis-view" "$VIEW_STATE"
python3 - "$OUT/view_series.txt" "$WANT_STEPS" <<'PY' || fail "tvis-view did not watch the run grow"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
steps = [int(r[0]) for r in rows]
live_steps = sorted({int(r[0]) for r in rows if r[1] == "True"})
if not rows or steps != sorted(steps):
    sys.exit(f"tvis-view steps went back or were never seen: {steps}")
if len(live_steps) < 2 or steps[0] >= int(sys.argv[2]):
    sys.exit(f"tvis-view saw no growth while live: live steps {live_steps}, all {steps}")
print(f"ok   tvis-view: live at steps {live_steps}, then complete at {steps[-1]}")
PY
kill -TERM "$OPEN_PID"; wait "$OPEN_PID" || true

# --- 2. remote: the agent over a real sshd -----------------------------------------
if [ -x /usr/sbin/sshd ] && [ "${TVIS_E2E_LIVE_REMOTE:-1}" = 1 ]; then
  ssh_setup
  TGT_PORT=$(free_port); start_sshd tgt "$TGT_PORT"
  cat > "$WORK/remote-tvis" <<SH
#!/bin/sh
exec "$TVIS" "\$@"
SH
  chmod +x "$WORK/remote-tvis"
  RRUNS="$WORK/remote_runs"
  mkdir -p "$RRUNS"
  start_training "$RRUNS"
  start_open "$WORK/remote" --ssh-config "$SSH_CONFIG" --remote-tvis "$WORK/remote-tvis" "tgt:$RRUNS"
  TVIS_LIVE_URL="$URL" TVIS_LIVE_OUT="$OUT/browser_remote.json" node "$HERE/live/live_browser.mjs" \
    || fail "browser (remote): $(tail -3 "$WORK/remote.err")"
  finish_training "$RRUNS"
  check_final "browser (over ssh)" "$OUT/browser_remote.json"
  kill -TERM "$OPEN_PID"; wait "$OPEN_PID" || true

  # --- 3. tvis-view HOST:PATH over a slow link: no frame waits for a recheck ---------
  # Every answer of the agent arrives DELAY seconds late (live/slow_agent.py
  # between ssh and `tvis agent --stdio`). tvis-view must keep drawing frames
  # while a recheck is outstanding (its p99 frame time far under DELAY: a
  # recheck made in the frame holds one frame in about twenty for DELAY or
  # more) and still pick up the growth once the answer is in.
  DELAY="${TVIS_E2E_LIVE_DELAY:-0.4}"
  cat > "$WORK/slow-tvis" <<SH
#!/bin/sh
exec python3 "$HERE/live/slow_agent.py" $DELAY "$TVIS" "\$@"
SH
  chmod +x "$WORK/slow-tvis"
  SRUNS="$WORK/slow_runs"
  mkdir -p "$SRUNS"
  start_training "$SRUNS"
  SLOW_STATE="$OUT/view_slow_state.json"
  rm -f "$SLOW_STATE"
  xvfb-run -a -s "-screen 0 1600x1000x24" sh -c 'echo $$ > "$0"; exec "$@"' "$WORK/view_slow.pid" \
    "$BIN/tvis-view" --ssh-config "$SSH_CONFIG" --remote-tvis "$WORK/slow-tvis" "tgt:$RUN" --size 1200x800 \
    --state-json "$SLOW_STATE" --state-every 0.5 >"$OUT/view_slow.stdout" 2>"$OUT/view_slow.stderr" &
  XVFB_PID=$!
  PIDS+=($XVFB_PID)
  # One JSON line per state: the run's live keys and the frame times.
  ( while :; do
      python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
r = d["run"]
if r:
    print(json.dumps({k: r.get(k) for k in ("steps", "live", "complete", "growths", "rechecking", "recheck_frames")} | {"frame_ms": d["frame_ms"]}))' "$SLOW_STATE" 2>/dev/null || true
      sleep 0.5
    done ) >"$OUT/view_slow_series.txt" &
  POLL_PID=$!
  PIDS+=($POLL_PID)
  finish_training "$SRUNS"
  for i in $(seq 1 300); do
    tail -1 "$OUT/view_slow_series.txt" 2>/dev/null | grep -q '"complete": true' && break
    kill -0 "$XVFB_PID" 2>/dev/null || break
    sleep 0.2
  done
  kill -TERM "$(cat "$WORK/view_slow.pid")" 2>/dev/null || true
  rc=0; wait "$XVFB_PID" || rc=$?
  kill "$POLL_PID" 2>/dev/null || true
  [ "$rc" = 0 ] || fail "tvis-view (slow link) exited $rc: $(tail -3 "$OUT/view_slow.stderr")"
  check_final "tvis-view (over a slow link)" "$SLOW_STATE"
  python3 - "$OUT/view_slow_series.txt" "$DELAY" <<'PY' || fail "tvis-view over a slow link"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
delay_ms = float(sys.argv[2]) * 1000
live_steps = sorted({r["steps"] for r in rows if r["live"]})
if len(live_steps) < 2:
    sys.exit(f"no growth seen while live: live steps {live_steps}")
waited = [r for r in rows if r["rechecking"]]
if not waited or max(r["recheck_frames"] or 0 for r in rows) == 0:
    sys.exit("no frame was drawn while a recheck was outstanding")
# p99 over at least 100 frames: the startup frames are fewer than 1 in 100.
settled = [r["frame_ms"] for r in rows if r["frame_ms"].get("frames", 0) >= 100]
if not settled:
    sys.exit("fewer than 100 frames measured")
p99 = max(f["p99"] for f in settled)
worst = max(f.get("max", 0) for f in settled)
print(f"note tvis-view over a {delay_ms:.0f} ms link: frame p99 {p99:.1f} ms, max {worst:.1f} ms, "
      f"{len(waited)} of {len(rows)} states taken while a recheck was outstanding, live steps {live_steps}")
if p99 >= delay_ms / 2:
    sys.exit(f"frames waited for the agent: p99 {p99:.1f} ms against a {delay_ms:.0f} ms link")
print("ok   tvis-view: frames go on while a recheck waits for the agent; the growth shows once answered")
PY
else
  echo "note: remote part not run (no /usr/sbin/sshd, or TVIS_E2E_LIVE_REMOTE=0)"
fi
echo "PASS test_live"
