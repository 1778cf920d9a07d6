#!/usr/bin/env bash
# tools/bench/remote/run.sh [BUILD_DIR] [WEB_DIR]: the two figures of
# `tvis open HOST:PATH` over a real loopback sshd (tests/e2e/sshd.sh):
#   1. bytes that cross the ssh session to list a ~1 GB synthetic run and show
#      its first page in headless Chromium (the agent's protocol bytes, both ways);
#   2. the latency one range read adds over ssh against a local read (bench_agent).
# BUILD_DIR holds bin/tvis, bin/tvis-synth, bin/bench_agent (default build);
# WEB_DIR the viewer (default build/web).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
BUILD="${1:-$ROOT/build}"
export TVIS_E2E_BIN="$BUILD/bin"
export TVIS_E2E_WEB="${2:-$ROOT/build/web}"
# lib.sh names its artifacts after the sourcing script.
source "$ROOT/tests/e2e/lib.sh"
source "$ROOT/tests/e2e/sshd.sh"
"$ROOT/tests/e2e/install_playwright.sh" || fail "playwright-core could not be installed"
export NODE_PATH="$ROOT/tests/e2e/node_modules" TVIS_WEB_DIR="$TVIS_E2E_WEB"
ssh_setup
PORT=$(free_port); start_sshd bench "$PORT"
RUNS="$WORK/runs/20260103-100000_big_cccccc"
mkdir -p "$RUNS"
"$BIN/tvis-synth" --out "$RUNS/run.tvis" --steps 20 --target-bytes 1.7e9 >/dev/null
SIZE=$(stat -c %s "$RUNS/run.tvis")
"$BIN/tvis" inspect --json "$RUNS/run.tvis" > "$WORK/big.json"

"$BIN/tvis" open --no-browser --ssh-config "$SSH_CONFIG" --remote-tvis "$BIN/tvis" "bench:$WORK/runs" > "$WORK/open.out" 2> "$WORK/open.err" &
PIDS+=($!)
for i in $(seq 300); do [ -s "$WORK/open.out" ] && break; sleep 0.1; done
URL="$(head -1 "$WORK/open.out")"
[ -n "$URL" ] || fail "tvis open printed no URL: $(cat "$WORK/open.err")"
STEPS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$WORK/big.json")
TVIS_OPEN_URL="$URL" TVIS_OPEN_EXPECTED="[{\"name\":\"20260103-100000_big_cccccc\",\"steps\":$STEPS}]" TVIS_OPEN_INSPECT="$WORK/big.json" \
  node "$ROOT/tests/e2e/open_test.mjs" >/dev/null || fail "the browser did not show the run"
curl -s "${URL%%/\?token=*}/api/stats?token=${URL##*token=}" > "$WORK/stats.json"
python3 - "$WORK/stats.json" "$SIZE" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["agent"]
print(f"bytes over ssh to list a {int(sys.argv[2]) / 1e9:.2f} GB run and show its first page: "
      f"{a['bytes_received'] + a['bytes_sent']} ({a['bytes_received']} from the agent, {a['bytes_sent']} to it, {a['requests']} requests)")
PY
"$BUILD/bin/bench_agent" --ssh-config "$SSH_CONFIG" --host bench --remote-tvis "$BIN/tvis" --path "$WORK/runs" --reads 300
