#!/usr/bin/env bash
# tools/bench/viewer/browser.sh: viewer.html in headless Chromium over the
# benchmark runs of bench_viewer (a ~1 GB synthetic run with 100,000 calls and
# a sparse copy over 4 GiB), served by nginx with Range. Prints, per run: time
# to the first frame with call-tree rows visible (from navigation, page load
# included, and from the page's wasm start), bytes of the run read to show it
# (nginx's body bytes for the run file, and their share of the file), and
# frame time median/p99 while the tree is scrolled.
# Usage: tools/bench/viewer/browser.sh [--calls N] [--bytes B]
source "$(cd "$(dirname "$0")/../../../tests/e2e" && pwd)/lib.sh"
command -v chromium >/dev/null || skip "chromium not installed"
"$ROOT/tests/e2e/install_playwright.sh" || skip "playwright-core could not be installed from npm"
[ -x "$ROOT/build/native/bin/bench_viewer" ] || fail "build/native/bin/bench_viewer missing (run tools/bootstrap)"

WWW="$WORK/www"
mkdir -p "$WWW/runs"
cp "$ROOT"/build/web/viewer.html "$ROOT"/build/web/viewer.js "$ROOT"/build/web/viewer.wasm "$WWW/"
echo "== native (bench_viewer) =="
"$ROOT/build/native/bin/bench_viewer" --dir "$WWW/runs" --keep "$@" || true

PORT=$(free_port)
start_nginx "$WWW" "$PORT"
echo "== browser (headless Chromium, software GL) =="
TVIS_BENCH_BASE="http://127.0.0.1:$PORT" TVIS_BENCH_RUNS="$WWW/runs" \
TVIS_BENCH_ACCESS_LOG="$WORK/nginx-$PORT/access.log" NODE_PATH="$ROOT/tests/e2e/node_modules" \
  node "$(dirname "$0")/browser_bench.mjs"
