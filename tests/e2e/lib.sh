# lib.sh: shared helpers of the end-to-end tests (sourced, not run).
# Every test_*.sh here exits 0 (pass), 77 (skipped: say why on stderr) or
# anything else (fail). Artifacts (screenshots, logs) go to $TVIS_E2E_OUT
# (default build/e2e/<test name>).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${TVIS_E2E_BIN:-$ROOT/build/bin}"  # another build's bin/ (tvis, tvis-synth, tvis-view)
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
start_plain_http() {
  python3 -m http.server "$2" --bind 127.0.0.1 --directory "$1" >"$WORK/http-$2.log" 2>&1 &
  PIDS+=($!)
  wait_for_port "$2"
}

# synth_run PATH [STEPS]: a synthetic run (until real recordings are used).
synth_run() {
  "$BIN/tvis-synth" --out "$1" --steps "${2:-3}" >/dev/null
}
