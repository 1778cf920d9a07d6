#!/usr/bin/env bash
# test_demo.sh: tools/demo against the tree as built (TVIS_DEMO_NO_BOOTSTRAP=1:
# nothing is rebuilt), as a user without a display meets it and as one with:
#   1. no display: the demo records the bundled example, prints the URL of
#      `tvis open` on stdout's first line; the page (with the token) and
#      /api/runs answer, the recorded run is listed; SIGINT ends it with exit
#      0 and "tvis open: stopped".
#   2. a display and $BROWSER: the browser is started on the URL (a stand-in
#      script writes down what it was given: the URL, or the handoff page
#      that redirects to it).
# Uses build/bin (tvis with the recorder, from tools/bootstrap) and build/web.
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

[ -x "$ROOT/build/bin/tvis" ] || skip "build/bin/tvis is not built (tools/bootstrap)"
"$ROOT/build/bin/tvis" run --help >/dev/null 2>&1 || skip "build/bin/tvis has no recorder (tvis run)"
[ -f "$ROOT/build/web/viewer.html" ] || skip "build/web/viewer.html is not built (tools/bootstrap)"

DEMO_PID=""
# start_demo NAME ENV...: runs tools/demo in the background with SIGINT at its
# default (a background job inherits it ignored), stdout/stderr in $WORK/NAME.{out,err}.
start_demo() {
  local name="$1"
  shift
  env "$@" TVIS_DEMO_NO_BOOTSTRAP=1 TVIS_DEMO_RUNS="$WORK/$name-runs" \
    env --default-signal=INT "$ROOT/tools/demo" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  DEMO_PID=$!
  PIDS+=("$DEMO_PID")
}

# wait_url NAME: the URL on the demo's stdout's first line (recording takes a while).
wait_url() {
  local i url
  for i in $(seq 1 600); do
    url="$(head -n 1 "$WORK/$1.out" 2>/dev/null || true)"
    if [[ "$url" == http://127.0.0.1:*'?token='* ]]; then echo "$url"; return 0; fi
    kill -0 "$DEMO_PID" 2>/dev/null || { cat "$WORK/$1.err" >&2; fail "tools/demo ($1) ended before printing a URL"; }
    sleep 0.5
  done
  cat "$WORK/$1.err" >&2
  fail "tools/demo ($1) printed no URL within 300 s"
}

# stop_demo NAME: SIGINT, then a clean exit: status 0, "tvis open: stopped".
stop_demo() {
  local rc=0 i
  kill -INT "$DEMO_PID"
  for i in $(seq 1 100); do kill -0 "$DEMO_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$DEMO_PID" 2>/dev/null && fail "tools/demo ($1) still runs 10 s after SIGINT"
  wait "$DEMO_PID" || rc=$?
  [ "$rc" = 0 ] || { cat "$WORK/$1.err" >&2; fail "tools/demo ($1) exited $rc after SIGINT, not 0"; }
  [ "$(tail -n 1 "$WORK/$1.err")" = "tvis open: stopped" ] || fail "tools/demo ($1): stderr's last line is not 'tvis open: stopped'"
}

# --- 1. no display: the URL, the page, the run list, Ctrl-C ---------------------------
start_demo headless -u DISPLAY -u WAYLAND_DISPLAY -u BROWSER
url="$(wait_url headless)"
port="${url#http://127.0.0.1:}"
port="${port%%/*}"
token="${url#*token=}"
grep -q 'build skipped' "$WORK/headless.err" || fail "the demo did not say it skipped the build"
if grep -q '^\[bootstrap\]' "$WORK/headless.err"; then fail "the demo ran tools/bootstrap with TVIS_DEMO_NO_BOOTSTRAP=1"; fi
grep -q 'step 2/3: recording 3 steps of examples/digits_cnn.py' "$WORK/headless.err" || fail "no progress line for the recording"
grep -q 'no display or browser here' "$WORK/headless.err" || fail "the demo did not say why it prints the URL"
grep -q 'ssh -L PORT:127.0.0.1:PORT' "$WORK/headless.err" || fail "the demo did not say how to reach it from another machine"

run_dir="$(find "$WORK/headless-runs" -mindepth 1 -maxdepth 1 -type d)"
[ "$(printf '%s\n' "$run_dir" | wc -l)" = 1 ] || fail "expected one run folder under the demo's runs folder, found: $run_dir"
[ -f "$run_dir/run.tvis" ] || fail "no run.tvis in $run_dir"

# One run served: the URL opens the viewer on it (303), the run list is at /runs.
read -r code location <<<"$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' --max-time 10 "$url")" || fail "GET $url failed"
[ "$code" = 303 ] && [[ "$location" == "http://127.0.0.1:$port/viewer.html?url=run/run.tvis%3Ftoken%3D$token&token=$token" ]] \
  || fail "the demo's URL does not open the viewer on its run: $code $location"
page="$(curl -sS --max-time 10 "http://127.0.0.1:$port/runs?token=$token")" || fail "GET /runs failed"
[[ "$page" == *"$(basename "$run_dir")"* ]] || fail "the run list page does not name $(basename "$run_dir")"
# What a browser shows first: the viewer with the run open (a screenshot in $OUT).
if command -v chromium >/dev/null && [ -d "$ROOT/tests/e2e/node_modules/playwright-core" ]; then
  TVIS_ROOT="$ROOT" node --input-type=module - "$url" "$OUT/demo_first_page.png" <<'JS' || fail "the demo's first page in a browser (see $OUT/demo_first_page.png)"
const [url, shot] = process.argv.slice(2);
const { launchChromium } = await import(process.env.TVIS_ROOT + '/tests/e2e/chromium.mjs');
const browser = await launchChromium();
let ok = false;
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(url);
  let s = null;
  for (const t0 = Date.now(); Date.now() - t0 < 60000; await page.waitForTimeout(100)) {
    s = await page.evaluate(() => (window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null)).catch(() => null);
    if (s && s.run && s.run.steps !== undefined) break;
  }
  await page.evaluate(() => new Promise((res) => { let n = 30; const f = () => (--n ? requestAnimationFrame(f) : res()); f(); }));
  await page.screenshot({ path: shot });
  const runsLink = await page.$('#tvis-runs');
  ok = /\/viewer\.html\?/.test(page.url()) && s && s.run && s.run.steps === 3 && s.errors.length === 0 &&
       runsLink !== null && (await runsLink.isVisible());
  console.log((ok ? 'ok   ' : 'FAIL ') + 'first page: ' + page.url().replace(/token=[0-9a-f]+/g, 'token=T') +
              ', run steps ' + (s && s.run ? s.run.steps : null) + ', errors ' + JSON.stringify(s && s.errors));
} finally {
  await browser.close();
}
process.exit(ok ? 0 : 1);
JS
fi
runs="$(curl -sS --max-time 10 "http://127.0.0.1:$port/api/runs?token=$token")" || fail "GET /api/runs failed"
"$TEST_PY" - "$runs" <<'PY' || fail "/api/runs does not list the recorded run: $runs"
import json, sys
runs = json.loads(sys.argv[1])
assert len(runs) == 1, runs
run = runs[0]
assert run["path"].endswith("run.tvis"), run
assert run["script"].endswith("digits_cnn.py"), run
assert run["steps"] == 3, run
assert run["complete"] is True, run
PY
# The viewer itself is served (tvis open found build/web).
code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/viewer.html?token=$token")"
[ "$code" = 200 ] || fail "GET /viewer.html answered $code"
code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/api/runs")"
[ "$code" = 403 ] || fail "GET /api/runs without the token answered $code, not 403"
stop_demo headless
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "port $port still open after the demo stopped"; fi

# --- 2. a display: the browser is started on the run ------------------------------------
cat >"$WORK/browser" <<SH
#!/bin/sh
printf '%s\n' "\$1" > "$WORK/browser.arg"
SH
chmod +x "$WORK/browser"
start_demo display DISPLAY=:99 BROWSER="$WORK/browser"
url="$(wait_url display)"
for i in $(seq 1 100); do [ -s "$WORK/browser.arg" ] && break; sleep 0.1; done
[ -s "$WORK/browser.arg" ] || fail "the demo with a display started no browser"
# tvis open hands the browser a page that redirects to the URL (so the token
# is not on a command line); a tvis built before that hands the URL itself.
handoff="$(cat "$WORK/browser.arg")"
if [ "$handoff" != "$url" ]; then
  [ -f "$handoff" ] || fail "the browser was given $handoff: neither the URL nor an existing page"
  grep -qF "$url" "$handoff" || fail "the page handed to the browser does not lead to $url"
fi
grep -q 'the browser opens' "$WORK/display.err" || fail "the demo with a display did not say the browser opens"
stop_demo display
echo "test_demo: passed (URL, run list, viewer, Ctrl-C; the browser started with a display)"
