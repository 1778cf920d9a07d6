#!/usr/bin/env bash
# The format's read half compiled to wasm (build/wasm/bin/tvis-read-check.js),
# run under node on the golden file and on a truncated and a bogus copy: its
# summary must equal the native `tvis inspect --json`, and bad files must
# fail with exit 2 and one line.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CHECK="$ROOT/build/wasm/bin/tvis-read-check.js"
GOLDEN="$ROOT/tests/data/golden_v1.tvis"
[ -f "$GOLDEN" ] || { echo "SKIP: $GOLDEN missing" >&2; exit 77; }
[ -f "$CHECK" ] || { echo "FAIL: $CHECK missing (run tools/bootstrap)" >&2; exit 1; }
export NODE_PATH=/usr/share/nodejs
NODE=(node --no-experimental-fetch)   # Node 20's built-in fetch breaks Emscripten 3.1.6's loader
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

compare() {  # compare RUN: wasm summary == native inspect on the shared keys
  "${NODE[@]}" "$CHECK" "$1" > "$WORK/wasm.json"
  "$ROOT/build/bin/tvis" inspect --json "$1" > "$WORK/native.json"
  python3 - "$WORK/wasm.json" "$WORK/native.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1])); n = json.load(open(sys.argv[2]))
keys = ["format_version", "complete", "steps", "events", "modules", "functions", "losses"]
bad = [k for k in keys if w[k] != n[k]]
if w["tensors"] != n["captured"]["tensors"]: bad.append("tensors")
if bad:
    sys.exit("FAIL: wasm and native differ on %s:\n wasm   %s\n native %s" % (bad, w, n))
print("wasm read half == native inspect: %d events, %d steps, %d chunks" % (w["events"], w["steps"], w["chunks"]))
PY
}

compare "$GOLDEN"
# format 2: weights stored as XOR deltas, one on another
compare "$ROOT/tests/data/golden_v2.tvis"

# A copy cut before its footer: recovered, complete false, same answer as native.
size=$(stat -c %s "$GOLDEN")
head -c $((size * 3 / 4)) "$GOLDEN" > "$WORK/cut.tvis"
compare "$WORK/cut.tvis"
grep -q '"complete":false' "$WORK/wasm.json" || { echo "FAIL: cut file reported complete" >&2; exit 1; }

# Not a run: exit 2, one line on stderr, no crash.
printf 'not a run\n' > "$WORK/bogus.tvis"
set +e
"${NODE[@]}" "$CHECK" "$WORK/bogus.tvis" > /dev/null 2> "$WORK/err"; rc=$?
set -e
[ "$rc" = 2 ] || { echo "FAIL: bogus file: exit $rc, want 2" >&2; cat "$WORK/err" >&2; exit 1; }
[ "$(wc -l < "$WORK/err")" = 1 ] || { echo "FAIL: bogus file: want one line on stderr" >&2; cat "$WORK/err" >&2; exit 1; }
echo "wasm read check: ok"
