#!/usr/bin/env bash
# The Diagnosis page in both shells over a real recording with a planted NaN
# (tests/data/diagnose_nan_layer.tvis): tvis-view under Xvfb (--page
# Diagnosis, --state-json) and viewer.html in headless Chromium through
# `tvis open`, each listing exactly what `tvis diagnose --json` finds, in
# order, with the top bar's badge counting them; a finding opens its link.
# `tvis diagnose gpu:RUNS` over a real sshd on 127.0.0.1 finds the same.
# Screenshots: $OUT/diagnosis_window.png, $OUT/diagnosis_browser.png.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/sshd.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
RUN="$ROOT/tests/data/diagnose_nan_layer.tvis"

set +e; "$BIN/tvis" diagnose --json "$RUN" > "$WORK/expected.json"; rc=$?; set -e
[ "$rc" = 1 ] || fail "tvis diagnose of a run with a NaN exited $rc, not 1"

# --- the native window
xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$RUN" --page Diagnosis --size 1400x900 --frames 30 \
  --screenshot "$OUT/diagnosis_window.png" --state-json "$WORK/window.json" 2> "$WORK/window.err" \
  || fail "tvis-view exited $?: $(cat "$WORK/window.err")"
python3 - "$WORK/window.json" "$WORK/expected.json" <<'PY' || fail "the window's Diagnosis page"
import json, sys
s, expected = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["findings"]
assert s["page"] == "Diagnosis" and s["view"]["ready"], (s["page"], s["view"])
shown = [(f["kind"], f["message"], f["link"]) for f in s["view"]["findings"]]
assert shown == [(f["kind"], f["message"], f["link"]) for f in expected], shown
assert s["diagnosis"] == {"ready": True, "count": len(expected), "errors": 2}, s["diagnosis"]
assert s["errors"] == [], s["errors"]
print("ok   window: %d findings as tvis diagnose lists them" % len(shown))
PY

# --- over ssh: the agent reads the run's chunks, diagnose runs here
NAME=20261205-120000_diagnose_train_aaaaaa
mkdir -p "$WORK/runs/$NAME"
cp "$RUN" "$WORK/runs/$NAME/run.tvis"
ssh_setup
start_sshd gpu "$(free_port)"
set +e
"$BIN/tvis" diagnose --json --ssh-config "$SSH_CONFIG" --remote-tvis "$BIN/tvis" "gpu:$WORK/runs" > "$WORK/remote.json" 2> "$WORK/remote.err"
rc=$?; set -e
[ "$rc" = 1 ] || fail "tvis diagnose over ssh exited $rc: $(cat "$WORK/remote.err")"
python3 - "$WORK/remote.json" "$WORK/expected.json" <<'PY' || fail "tvis diagnose over ssh"
import json, sys
remote, local = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert remote["findings"] == local["findings"], (remote["findings"], local["findings"])
assert remote["run"].endswith("run.tvis") and "gpu" in remote["run"], remote["run"]
assert remote["read"]["bytes"] == local["read"]["bytes"], (remote["read"], local["read"])
print("ok   over ssh: the same %d findings, %d bytes read" % (len(remote["findings"]), remote["read"]["bytes"]))
PY

# --- the browser, through tvis open
command -v chromium >/dev/null || skip "chromium not installed"
"$(dirname "$0")/install_playwright.sh" || skip "playwright-core could not be installed from npm"
[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap)"
export NODE_PATH="$(dirname "$0")/node_modules" TVIS_WEB_DIR="$WEB"
start_tvis_open "$WORK/runs"
TVIS_DIAG_URL="$BASE/viewer.html?token=$TOKEN&url=run/$NAME/run.tvis&page=Diagnosis" \
  TVIS_DIAG_EXPECTED="$WORK/expected.json" TVIS_DIAG_SHOT="$OUT/diagnosis_browser.png" \
  node "$(dirname "$0")/diagnosis/diagnosis_browser.mjs" || fail "the browser's Diagnosis page"
echo "PASS test_diagnosis"
