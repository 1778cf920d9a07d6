#!/usr/bin/env bash
# tools/bench/viewer/replay_browser.sh RUN.tvis: Replay in headless Chromium
# (software GL) playing RUN, served by nginx with Range: frame time per phase
# and bytes served per step (replay_browser.mjs). The goal case is the
# ResNet-18 run: tvis run --steps 3 tools/bench/recorder/resnet18_cpu.py --steps 3.
# Environment: TVIS_BENCH_WEB  the web/ folder with viewer.html (default build/web).
source "$(cd "$(dirname "$0")/../../../tests/e2e" && pwd)/lib.sh"
[ -f "${1:-}" ] || fail "usage: replay_browser.sh RUN.tvis"
command -v chromium >/dev/null || skip "chromium not installed"
"$ROOT/tests/e2e/install_playwright.sh" || skip "playwright-core could not be installed from npm"
WEBDIR="${TVIS_BENCH_WEB:-$ROOT/build/web}"
WWW="$WORK/www"
mkdir -p "$WWW/runs"
cp "$WEBDIR"/viewer.html "$WEBDIR"/viewer.js "$WEBDIR"/viewer.wasm "$WWW/"
ln -s "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" "$WWW/runs/run.tvis"
PORT=$(free_port)
start_nginx "$WWW" "$PORT"
TVIS_BENCH_BASE="http://127.0.0.1:$PORT" TVIS_BENCH_RUN="$1" TVIS_BENCH_ACCESS_LOG="$WORK/nginx-$PORT/access.log" \
  NODE_PATH="$ROOT/tests/e2e/node_modules" node "$(dirname "$0")/replay_browser.mjs"
