#!/usr/bin/env bash
# The VS Code extension's own integration tests (editors/vscode/test), mocha
# inside a real extension host (code-server 4.99.4 = VS Code 1.99.3), loaded
# from source (build/vscode/ext) through code-server's test payload URL:
#   1. a trusted copy of tests/editors/goodnet_workspace: interpreter
#      resolution order, the picker's remembered choice and its refusal,
#      unsaved edits, a malformed tensorviz.toml, cancellation, the panel's
#      range-only protocol (real `tvis graph` captures), Record This Script
#      (examples/digits_cnn.py), a planted bug's diagnose finding in Problems
#      and a source link opening the editor,
#      the bytes a ~200 MB run (tvis-synth) hands over for a first frame;
#   2. the same workspace untrusted (Workspace Trust on, Restricted Mode):
#      nothing runs, checked with a tvis.path that leaves a marker when run.
source "$(dirname "$0")/lib.sh"
prepare_editor_tests
t0=$SECONDS

cp -r "$ROOT/tests/editors/goodnet_workspace" "$WORK/ws"
cp "$ROOT/examples/digits_cnn.py" "$WORK/ws/"   # what Record This Script records
# A ~200 MB synthetic run: what the panel reads of it to draw a first frame.
[ -x "$BIN/tvis-synth" ] || fail "$BIN/tvis-synth missing (run tools/bootstrap)"
export TVIS_TEST_BIG_RUN="$WORK/big/run.tvis"
mkdir -p "$WORK/big"
"$BIN/tvis-synth" --out "$TVIS_TEST_BIG_RUN" --steps 200 --target-bytes 3.2e8 --zstd-level 1 >/dev/null \
  || fail "tvis-synth could not write $TVIS_TEST_BIG_RUN"
export TVIS_TEST_SUITE=extension
start_code_server "$WORK/cs1/ud" "$WORK/ws" trusted
node "$ROOT/tests/editors/run_extension_tests.cjs" "$CS_URL" "$WORK/ws" "$EXT" "$EXT/out/test/index.js" \
  > "$OUT/extension.log" 2>&1 || { cat "$OUT/extension.log"; fail "extension tests (trusted workspace)"; }
grep -E 'passing|failing|✔|[0-9]+\) |bytes handed' "$OUT/extension.log" || true
stop_code_servers

cp -r "$ROOT/tests/editors/goodnet_workspace" "$WORK/ws_untrusted"
export TVIS_TEST_SUITE=untrusted TVIS_TEST_MARKER="$WORK/tvis_was_run"
printf '#!/bin/sh\ntouch %s\nexec %s "$@"\n' "$TVIS_TEST_MARKER" "$BIN/tvis" > "$WORK/marker_tvis"
chmod +x "$WORK/marker_tvis"
TVIS_PATH_SETTING="$WORK/marker_tvis" start_code_server "$WORK/cs2/ud" "$WORK/ws_untrusted" untrusted
node "$ROOT/tests/editors/run_extension_tests.cjs" "$CS_URL" "$WORK/ws_untrusted" "$EXT" "$EXT/out/test/index.js" \
  > "$OUT/untrusted.log" 2>&1 || { cat "$OUT/untrusted.log"; fail "extension tests (untrusted workspace)"; }
grep -E 'passing|failing' "$OUT/untrusted.log" || true
[ ! -e "$TVIS_TEST_MARKER" ] || fail "tvis was run in an untrusted workspace"
echo "extension tests: $((SECONDS - t0)) s" >&2
echo "ok"
