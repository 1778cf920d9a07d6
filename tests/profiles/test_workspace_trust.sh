#!/usr/bin/env bash
# test_workspace_trust.sh (issue 29 item 1): opening a cloned repository never
# runs a program the repository names. A workspace whose
# .tensorviz-choices.toml (`python`) and tensorviz.toml (`[tool] python_path`)
# name a script that leaves a mark: `tvis profiles`, `tvis check`, `tvis mcp`'s
# profiles and check tools never run it, with or without --python, until the
# user's own config lists the workspace in `[tool] trusted_workspaces`; then
# the workspace's choice runs, and --python still wins. Exit 0 pass, 77 skip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TVIS="$(realpath -m "${TVIS_E2E_BIN:-$ROOT/build/bin}/tvis")"
[ -x "$TVIS" ] || { echo "skip: no built tvis at $TVIS (TVIS_E2E_BIN names another build's bin/)" >&2; exit 77; }
PY="$(realpath -m "${TVIS_TEST_PYTHON:-$ROOT/build/venv/bin/python}")"
"$PY" -c "import torch" 2>/dev/null || { echo "skip: $PY has no torch" >&2; exit 77; }
WORK="$(mktemp -d /tmp/tvis-trust.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache" XDG_CONFIG_HOME="$WORK/config" TVIS_PYTHON="$PY"
mkdir -p "$WORK/config/tvis" "$WORK/out"
WS="$WORK/cloned"
cp -r "$ROOT/tests/profiles/check_workspace" "$WS"
MARK="$WORK/ran"
printf '#!/bin/sh\necho "$@" >> "%s"\nexec "%s" "$@"\n' "$MARK" "$PY" > "$WS/evil.sh"
chmod +x "$WS/evil.sh"
printf 'python = "evil.sh"\n' > "$WS/.tensorviz-choices.toml"
printf '\n[tool]\npython_path = "evil.sh"\n' >> "$WS/tensorviz.toml"
fail=0
expect() {  # expect NAME CONDITION_TEXT: the condition is a shell test
  if eval "$2"; then echo "ok $1"; else echo "FAIL $1: $2"; fail=1; fi
}
cd "$WS"
rc=0; "$TVIS" profiles --json > "$WORK/out/profiles.json" 2> "$WORK/out/profiles.err" || rc=$?
expect profiles_runs_nothing '[ ! -e "$MARK" ] && [ "$rc" = 0 ]'
rc=0; "$TVIS" check --json --profile two_blocks > "$WORK/out/check.json" 2> "$WORK/out/check.err" || rc=$?
expect check_runs_nothing '[ ! -e "$MARK" ] && [ "$rc" = 0 ]'
expect check_says_ignored 'grep -q "not trusted" "$WORK/out/check.err"'
expect check_interpreter_is_discovery '"$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(j[\"interpreter\"][\"origin\"] != \"discovery\")" "$WORK/out/check.json"'
rc=0; "$TVIS" check --json --python "$PY" --profile two_blocks > "$WORK/out/check_flag.json" 2> "$WORK/out/check_flag.err" || rc=$?
expect flag_wins_over_remembered '[ ! -e "$MARK" ] && [ "$rc" = 0 ]'
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"profiles","arguments":{}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"check","arguments":{"profile":"two_blocks"}}}' |
  "$TVIS" mcp --log "$WORK/mcp.log" > "$WORK/out/mcp.jsonl" 2> "$WORK/out/mcp.err" || true
expect mcp_runs_nothing '[ ! -e "$MARK" ] && [ "$(wc -l < "$WORK/out/mcp.jsonl")" = 3 ]'
# The user trusts the workspace in their own config: its choice runs; --python still wins.
printf '[tool]\ntrusted_workspaces = ["%s"]\n' "$WS" > "$WORK/config/tvis/config.toml"
rc=0; "$TVIS" check --json --profile two_blocks > "$WORK/out/trusted.json" 2> "$WORK/out/trusted.err" || rc=$?
expect trusted_runs_its_choice '[ -e "$MARK" ] && [ "$rc" = 0 ]'
rm -f "$MARK"
rc=0; "$TVIS" check --json --python "$PY" --profile two_blocks > "$WORK/out/trusted_flag.json" 2> "$WORK/out/trusted_flag.err" || rc=$?
expect trusted_flag_still_wins '[ ! -e "$MARK" ] && [ "$rc" = 0 ]'
[ "$fail" = 0 ] || { for f in "$WORK"/out/*.err; do echo "== $f"; tail -5 "$f"; done; }
exit $fail
