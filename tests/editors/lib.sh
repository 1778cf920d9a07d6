# lib.sh: shared by the editor tests (sourced). A real VS Code: code-server
# (install_code_server.sh, into build/code-server) serving the workbench on
# 127.0.0.1, driven by playwright-core (pinned in editors/vscode's
# package-lock.json, installed by tools/vsix) with Debian's chromium. The
# extension is staged by `tools/vsix --stage-only` (build/vscode/ext) and
# loaded from there.
# Artifacts (screenshots, logs) in build/e2e/<test name>, as the browser tests'.
TVIS_E2E_OUT="${TVIS_E2E_OUT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/e2e/$(basename "${BASH_SOURCE[1]}" .sh)}"
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"
EXT="$ROOT/build/vscode/ext"
CS_BIN="$ROOT/build/code-server/app/node_modules/.bin/code-server"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
export NODE_PATH="$EXT/node_modules"   # the drivers' require('playwright-core')
# code-server's and chromium's own config and data stay in $WORK, not $HOME.
export XDG_CONFIG_HOME="$WORK/xdg/config" XDG_DATA_HOME="$WORK/xdg/data"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"

# prepare: code-server installed, the extension staged, tvis and chromium
# present; prints the seconds the code-server install took (0 when present).
prepare_editor_tests() {
  [ -x "$BIN/tvis" ] || fail "$BIN/tvis missing (run tools/bootstrap)"
  [ -x "$CHROMIUM" ] || fail "$CHROMIUM missing (tools/packages.txt: chromium)"
  "$TEST_PY" -c 'import torch' 2>/dev/null || fail "$TEST_PY has no torch (tools/bootstrap installs it)"
  local t0=$SECONDS
  "$ROOT/tests/editors/install_code_server.sh" || fail "code-server could not be installed"
  echo "code-server install: $((SECONDS - t0)) s" >&2
  t0=$SECONDS
  "$ROOT/tools/vsix" --stage-only >/dev/null || fail "tools/vsix --stage-only failed"
  echo "extension staged: $((SECONDS - t0)) s" >&2
}

# start_code_server USER_DIR FOLDER TRUST: code-server on a free port in its
# own process group (ended at exit with its extension hosts and watchers);
# TRUST=trusted disables Workspace Trust, TRUST=untrusted leaves it on with
# no prompt (the folder opens in Restricted Mode). Sets CS_URL and CS_PGID.
start_code_server() {
  local ud="$1" folder="$2" trust="$3" port
  port="$(free_port)"
  mkdir -p "$ud/User"
  local trust_json='"security.workspace.trust.enabled": false' flag=--disable-workspace-trust
  if [ "$trust" = untrusted ]; then
    trust_json='"security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never", "security.workspace.trust.emptyWindow": false'
    flag=
  fi
  cat > "$ud/User/settings.json" <<JSON
{ $trust_json, "workbench.startupEditor": "none", "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false, "update.mode": "none",
  "workbench.enableExperiments": false, "workbench.tips.enabled": false,
  "tvis.path": "${TVIS_PATH_SETTING:-$BIN/tvis}", "tensorviz.pythonPath": "$TEST_PY" }
JSON
  setsid "$CS_BIN" --auth none --bind-addr "127.0.0.1:$port" --disable-telemetry --disable-update-check \
    $flag --user-data-dir "$ud" --extensions-dir "$ud/../exts" "$folder" > "$ud/../cs.log" 2>&1 &
  CS_PGID=$!
  CS_PGIDS+=("$CS_PGID")
  CS_URL="http://127.0.0.1:$port"
  local i
  for i in $(seq 1 150); do curl -sf -o /dev/null "$CS_URL/healthz" && return 0; sleep 0.2; done
  cat "$ud/../cs.log" >&2
  fail "code-server did not answer on $CS_URL"
}

CS_PGIDS=()
stop_code_servers() {
  local pg
  for pg in "${CS_PGIDS[@]}"; do kill -TERM -- "-$pg" 2>/dev/null || true; done
  for pg in "${CS_PGIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 -- "-$pg" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pg" 2>/dev/null || true
  done
  CS_PGIDS=()
}
trap 'stop_code_servers; cleanup' EXIT
