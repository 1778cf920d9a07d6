#!/usr/bin/env bash
# tools/bench/viewer/browser.sh: viewer.html in headless Chromium over the
# benchmark runs of bench_viewer (a ~1 GB synthetic run with 100,000 calls and
# a sparse copy over 4 GiB), served by nginx with Range. Prints, per run: time
# to the first frame with call-tree row 0 drawn with its data (from
# navigation, page load included, and from the moment the viewer is up, i.e.
# main() ran), the same for a placeholder row, the run's requests until then,
# bytes of the run read to show it (nginx's body bytes for the run file, and
# their share of the file), and frame time median/p99 while the tree is
# scrolled. Software GL is slow to start: the first frame and its
# presentation cost a few hundred milliseconds of the figures.
# Usage: tools/bench/viewer/browser.sh [--calls N] [--bytes B]
# Environment: TVIS_BENCH_BUILD  the native build with bench_viewer (default
#                build/native); the page comes from build/web.
#              TVIS_BENCH_RUNS_DIR  a folder holding big.tvis and sparse.tvis
#                from an earlier `bench_viewer --dir DIR --keep`: served as
#                they are (no native figures, no 30 s of writing).
#              TVIS_BENCH_PAGE  the page's path under the served folder
#                (default viewer.html): an older build's page, for A/B.
source "$(cd "$(dirname "$0")/../../../tests/e2e" && pwd)/lib.sh"
command -v chromium >/dev/null || skip "chromium not installed"
"$ROOT/tests/e2e/install_playwright.sh" || skip "playwright-core could not be installed from npm"
BENCH_BUILD="${TVIS_BENCH_BUILD:-$ROOT/build/native}"
[ -x "$BENCH_BUILD/bin/bench_viewer" ] || fail "$BENCH_BUILD/bin/bench_viewer missing (run tools/bootstrap)"

WWW="$WORK/www"
mkdir -p "$WWW/runs"
cp "$ROOT"/build/web/viewer.html "$ROOT"/build/web/viewer.js "$ROOT"/build/web/viewer.wasm "$WWW/"
if [ -n "${TVIS_BENCH_RUNS_DIR:-}" ]; then
  for f in big.tvis sparse.tvis; do
    [ -f "$TVIS_BENCH_RUNS_DIR/$f" ] || fail "$TVIS_BENCH_RUNS_DIR/$f missing"
    ln -s "$(cd "$TVIS_BENCH_RUNS_DIR" && pwd)/$f" "$WWW/runs/$f"
  done
else
  echo "== native (bench_viewer) =="
  "$BENCH_BUILD/bin/bench_viewer" --dir "$WWW/runs" --keep "$@" || true
fi

PORT=$(free_port)
start_nginx "$WWW" "$PORT"
echo "== browser (headless Chromium, software GL) =="
TVIS_BENCH_BASE="http://127.0.0.1:$PORT" TVIS_BENCH_RUNS="$WWW/runs" \
TVIS_BENCH_ACCESS_LOG="$WORK/nginx-$PORT/access.log" NODE_PATH="$ROOT/tests/e2e/node_modules" \
  node "$(dirname "$0")/browser_bench.mjs"
