# lib.sh: shared helpers of the end-to-end tests (sourced, not run).
# Every test_*.sh here exits 0 (pass), 77 (skipped: say why on stderr) or
# anything else (fail). Artifacts (screenshots, logs) go to $TVIS_E2E_OUT
# (default build/e2e/<test name>).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${TVIS_E2E_BIN:-$ROOT/build/bin}"  # another build's bin/ (tvis, tvis-synth, tvis-view)
TEST_BIN="${TVIS_E2E_TEST_BIN:-$ROOT/build/native/bin}"  # the Catch2 binaries (test_viewer), not copied to bin/
WEB="${TVIS_E2E_WEB:-$ROOT/build/web}"  # another build's web/ (viewer.html, viewer.js, viewer.wasm)
# The Python with torch that records, checks and reads runs: build/venv's (the newest torch) unless
# $TVIS_TEST_PYTHON names another; exported for the .mjs and .py helpers.
export TVIS_TEST_PYTHON="${TVIS_TEST_PYTHON:-$ROOT/build/venv/bin/python}"
TEST_PY="$TVIS_TEST_PYTHON"
TEST_NAME="$(basename "${BASH_SOURCE[1]}" .sh)"
OUT="${TVIS_E2E_OUT:-$ROOT/build/e2e/$TEST_NAME}"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/tvis-e2e.XXXXXX)"
chmod 755 "$WORK"
PIDS=()

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})'
}

wait_for_port() {
  local port="$1" i
  for i in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  fail "nothing listens on 127.0.0.1:$port"
}

# start_nginx DIR PORT: serves DIR on 127.0.0.1:PORT with Range support.
start_nginx() {
  local root="$1" port="$2" conf="$WORK/nginx-$2"
  mkdir -p "$conf"
  cat > "$conf/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $conf/nginx.pid;
error_log $conf/error.log;
$( [ "$(id -u)" = 0 ] && echo "user root root;" )
events { worker_connections 64; }
http {
  access_log $conf/access.log;
  client_body_temp_path $conf/body;
  types { text/html html; application/javascript js; application/wasm wasm; application/octet-stream tvis; }
  server {
    listen 127.0.0.1:$port;
    root $root;
  }
}
NGINX
  nginx -p "$conf" -c "$conf/nginx.conf" -e "$conf/error.log" &
  PIDS+=($!)
  wait_for_port "$port"
}

# start_plain_http DIR PORT: Python's http.server, which ignores Range.
# start_tvis_open DIR: `$BIN/tvis open --no-browser DIR` in the background
# (ended at exit; SIGINT at its default, as a terminal's Ctrl-C finds it),
# its output in $WORK/open.out and open.err; sets URL (what it printed),
# BASE (http://127.0.0.1:PORT) and TOKEN, or fails when no URL comes in 30 s.
start_tvis_open() {
  python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
    "$BIN/tvis" open --no-browser "$1" > "$WORK/open.out" 2> "$WORK/open.err" &
  PIDS+=($!)
  for i in $(seq 1 300); do [ -s "$WORK/open.out" ] && break; sleep 0.1; done
  URL="$(head -1 "$WORK/open.out")"
  [[ "$URL" == http://127.0.0.1:* ]] || fail "tvis open printed no URL: $(cat "$WORK/open.err")"
  BASE="${URL%%/\?token=*}"; TOKEN="${URL##*token=}"
}

start_plain_http() {
  python3 -m http.server "$2" --bind 127.0.0.1 --directory "$1" >"$WORK/http-$2.log" 2>&1 &
  PIDS+=($!)
  wait_for_port "$2"
}

# synth_run PATH [STEPS]: a synthetic run (shapes and sizes chosen by the test).
synth_run() {
  "$BIN/tvis-synth" --out "$1" --steps "${2:-3}" >/dev/null
}

# real_run RUNS_DIR: records 2 steps of the bundled examples/digits_cnn.py
# with `tvis run` into RUNS_DIR and prints the run.tvis path. Fails (does not
# skip) when recording fails: the recorder is part of what is tested.
real_run() {
  local log="$WORK/real_run.log"
  "$TEST_PY" -c 'import torch' 2>/dev/null || fail "real_run: $TEST_PY has no torch (run tools/bootstrap)"
  "$BIN/tvis" run --steps 2 --out "$1" "$ROOT/examples/digits_cnn.py" --epochs 1 >"$log" 2>&1 \
    || fail "real_run: tvis run failed: $(tail -5 "$log")"
  sed -n 's/^tvis run: recorded //p' "$log" | tail -1
}

# first_call_of RUN CLASS: the id of the first module call of class CLASS in
# RUN (read with the recorder's Python reader; the build's native module).
first_call_of() {
  PYTHONPATH="${TVIS_E2E_NATIVE_PY:-$ROOT/build/native/python}:$ROOT/recorder/python" "$TEST_PY" - "$1" "$2" <<'PY'
import sys
from tvis._read import load
calls = [e["id"] for e in load(sys.argv[1]).module_events() if e["class_name"] == sys.argv[2]]
if not calls:
    sys.exit(f"first_call_of: no {sys.argv[2]} call in {sys.argv[1]}")
print(min(calls))
PY
}

# screen_check CHECK PNG [ARGS]: a check on what a person sees (screen_check.py).
screen_check() {
  "$TEST_PY" "$(dirname "${BASH_SOURCE[0]}")/screen_check.py" "$@" || fail "screen_check $*"
}
