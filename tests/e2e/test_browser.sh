#!/usr/bin/env bash
# viewer.html in headless Chromium (playwright-core, Debian's chromium):
# ?url= from nginx (Range) and from Python's http.server (no Range), the
# file input, real clicks and keys, bad input, and the single-file page.
source "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || skip "chromium not installed"
command -v nginx >/dev/null || skip "nginx not installed"
[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap)"
"$(dirname "$0")/install_playwright.sh" || skip "playwright-core could not be installed from npm"

# One served tree: the page and its files, plus runs.
WWW="$WORK/www"
mkdir -p "$WWW/runs"
cp "$WEB"/viewer.html "$WEB"/viewer.js "$WEB"/viewer.wasm "$WWW/"
synth_run "$WWW/runs/run.tvis" 3
printf 'plain text, not a run\n' > "$WWW/runs/bogus.tvis"
# The golden file is a real recording (tvis run): served as well.
cp "$ROOT/tests/data/golden_v1.tvis" "$WWW/runs/golden.tvis"
"$BIN/tvis" inspect --json "$WWW/runs/golden.tvis" > "$WORK/golden.json"
export TVIS_E2E_GOLDEN_INSPECT="$WORK/golden.json"
"$BIN/tvis" inspect --json "$WWW/runs/run.tvis" > "$WORK/inspect.json"
# A real recording made now: `tvis run` of the bundled example.
REAL="$(real_run "$WWW/runs/real")"
[ -f "$REAL" ] || fail "real_run printed no run path"
"$BIN/tvis" inspect --json "$REAL" > "$WORK/real.json"
export TVIS_E2E_REAL_INSPECT="$WORK/real.json"
export TVIS_E2E_REAL_URL="/runs/real/${REAL#"$WWW/runs/real/"}"
TVIS_E2E_REAL_CONV="$(first_call_of "$REAL" Conv2d)" || fail "real run: no Conv2d call"
export TVIS_E2E_REAL_CONV

# A runs folder (two runs, as `tvis run` names their folders) for the folder
# input and a folder dropped on the page; listed newest first.
mkdir -p "$WORK/runs_folder/20260101-120000_train_a" "$WORK/runs_folder/20260102-090000_train_b"
synth_run "$WORK/runs_folder/20260101-120000_train_a/run.tvis" 3
synth_run "$WORK/runs_folder/20260102-090000_train_b/run.tvis" 2
export TVIS_E2E_RUNS_DIR="$WORK/runs_folder"
TVIS_E2E_RUNS_EXPECTED="$(for d in 20260102-090000_train_b 20260101-120000_train_a; do
  "$BIN/tvis" inspect --json "$WORK/runs_folder/$d/run.tvis" | python3 -c 'import json,sys; print(json.dumps({"name": sys.argv[1], "steps": json.load(sys.stdin)["steps"]}))' "$d"
done | python3 -c 'import json,sys; print(json.dumps([json.loads(l) for l in sys.stdin]))')"
export TVIS_E2E_RUNS_EXPECTED

RANGE_PORT=$(free_port)
start_nginx "$WWW" "$RANGE_PORT"
PLAIN_PORT=$(free_port)
start_plain_http "$WWW" "$PLAIN_PORT"

export TVIS_E2E_RANGE_BASE="http://127.0.0.1:$RANGE_PORT"
export TVIS_E2E_PLAIN_BASE="http://127.0.0.1:$PLAIN_PORT"
export TVIS_E2E_RUN_FILE="$WWW/runs/run.tvis"
export TVIS_E2E_INSPECT="$WORK/inspect.json"
export TVIS_E2E_SINGLE="$WEB/viewer-single.html"
export TVIS_E2E_OUT_DIR="$OUT"
export NODE_PATH="$(dirname "$0")/node_modules"
# Under load, as on a busy machine: both cores kept busy while the browser
# test runs (one key press must still be one move however slow the frames).
for _ in 1 2; do
  timeout 600 sh -c 'while :; do :; done' &
  PIDS+=("$!")
done
node "$(dirname "$0")/browser_test.mjs"
# nginx served ranges, not whole files, for the run.
grep -q '"GET /runs/run.tvis HTTP/1.1" 206' "$WORK/nginx-$RANGE_PORT/access.log" \
  || fail "no Range (206) requests reached nginx"
