#!/usr/bin/env bash
# The VS Code extension through VS Code's own UI (code-server 4.99.4 =
# VS Code 1.99.3, headless Chromium driven by playwright-core): the seed's
# GoodNet with audit_small and audit_large → the CodeLens → the QuickPick →
# audit_large → the panel's viewer shows output [3, 2] on its Graph page; the
# second opening asks nothing (ui_open_as_graph.cjs). Screenshots in $OUT
# (look at them); a saved edit of the model then marks the graph stale.
# Prints the seconds from the second click (an unchanged
# saved profile) to the graph drawn, next to `tvis check`'s own time.
source "$(dirname "$0")/lib.sh"
prepare_editor_tests
cp -r "$ROOT/tests/editors/goodnet_workspace" "$WORK/ws"

# tvis check's own time on the same profile: the figure the panel's is compared with.
t0=$(date +%s.%N)
"$BIN/tvis" check audit_models:GoodNet --profile audit_large --workspace "$WORK/ws" --python "$TEST_PY" \
  --log "$WORK/check.log" > "$OUT/check.txt" 2>&1 || fail "tvis check failed: $(cat "$OUT/check.txt")"
check_s=$(echo "$(date +%s.%N) - $t0" | bc)

# The packaged extension, installed as a user would: the .vsix tools/vsix writes.
t0=$SECONDS
VSIX="$("$ROOT/tools/vsix")" || fail "tools/vsix failed"
mkdir -p "$WORK/cs/ud"
"$CS_BIN" --user-data-dir "$WORK/cs/ud" --extensions-dir "$WORK/cs/exts" --install-extension "$VSIX" --force \
  > "$OUT/install_vsix.log" 2>&1 || { cat "$OUT/install_vsix.log"; fail "code-server --install-extension $VSIX"; }
"$CS_BIN" --user-data-dir "$WORK/cs/ud" --extensions-dir "$WORK/cs/exts" --list-extensions --show-versions \
  | grep -qx 'tvis.tvis@0.1.0' || fail "tvis.tvis@0.1.0 not listed after installing $VSIX"
echo "packaged and installed: $((SECONDS - t0)) s" >&2

t0=$SECONDS
start_code_server "$WORK/cs/ud" "$WORK/ws" trusted
node "$ROOT/tests/editors/ui_open_as_graph.cjs" "$CS_URL" "$WORK/ws" "$OUT" > "$OUT/ui.log" 2>&1 \
  || { cat "$OUT/ui.log"; fail "Open as Graph through the UI (screenshots in $OUT)"; }
cat "$OUT/ui.log"
echo "UI test: $((SECONDS - t0)) s; tvis check: $check_s s; Open as Graph (unchanged saved profile) to graph drawn: $(node -p "require('$OUT/ui_timings.json').second_open_s") s" >&2
echo ok
