#!/usr/bin/env bash
# test_hostile_json.sh (issue 29 item 5): every JSON tvis emits survives any
# byte string. A workspace folder, a run folder and a script path that are not
# UTF-8 used to abort tvis (exit 134: nlohmann's dump() throws on them) in
# `profiles --json`, `check --json`, `inspect --json` and the mcp tools. Now
# each prints valid UTF-8 JSON (an invalid byte is U+FFFD). Exit 0 pass, 77 skip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TVIS="$(realpath -m "${TVIS_E2E_BIN:-$ROOT/build/bin}/tvis")"
[ -x "$TVIS" ] || { echo "skip: no built tvis at $TVIS (TVIS_E2E_BIN names another build's bin/)" >&2; exit 77; }
PY="${TVIS_TEST_PYTHON:-$ROOT/build/venv/bin/python}"
"$PY" -c "import torch" 2>/dev/null || { echo "skip: $PY has no torch" >&2; exit 77; }
WORK="$(mktemp -d /tmp/tvis-hostile-json.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache" XDG_CONFIG_HOME="$WORK/config"
BAD="$WORK/$(printf 'ws_\xff\xfe')"
cp -r "$ROOT/tests/profiles/check_workspace" "$BAD"
mkdir -p "$WORK/out" "$WORK/$(printf 'runs/run_\xff')"
cp "$ROOT/tests/data/golden_v1.tvis" "$WORK/$(printf 'runs/run_\xff')/run.tvis"
fail=0
# valid NAME RC_ALLOWED... < output: the output is one JSON value in valid UTF-8 and the exit code allowed.
valid() {
  local name="$1" rc="$2"; shift 2
  local ok=0
  for a in "$@"; do [ "$rc" = "$a" ] && ok=1; done
  if [ "$ok" != 1 ]; then echo "FAIL $name: exit $rc (allowed: $*)"; fail=1; return; fi
  if ! "$PY" -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))' < "$WORK/out/$name.json"; then
    echo "FAIL $name: not valid UTF-8 JSON"; head -c 400 "$WORK/out/$name.json"; fail=1; return
  fi
  echo "ok $name"
}
rc=0; "$TVIS" profiles --json --workspace "$BAD" --python "$PY" > "$WORK/out/profiles.json" 2> "$WORK/out/profiles.err" || rc=$?
valid profiles "$rc" 0 2
rc=0; (cd "$BAD" && "$TVIS" check --json --python "$PY" --profile audit_small) > "$WORK/out/check.json" 2> "$WORK/out/check.err" || rc=$?
valid check "$rc" 0 1 2  # 2: the source reader cannot read a workspace path that is not UTF-8 (refused, not aborted)
rc=0; (cd "$BAD" && "$TVIS" check --json --python "$PY" --profile nope) > "$WORK/out/check_refused.json" 2> "$WORK/out/check_refused.err" || rc=$?
valid check_refused "$rc" 2
rc=0; "$TVIS" inspect --json "$WORK/$(printf 'runs/run_\xff')" > "$WORK/out/inspect.json" 2> "$WORK/out/inspect.err" || rc=$?
valid inspect "$rc" 0
# tvis mcp's profiles tool on that workspace: one valid response line, the server still alive.
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"profiles","arguments":{}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"ping"}' |
  (cd "$BAD" && "$TVIS" mcp --python "$PY" --log "$WORK/mcp.log") > "$WORK/out/mcp.jsonl" 2> "$WORK/out/mcp.err" || rc=$?
if "$PY" - "$WORK/out/mcp.jsonl" <<'PYSRC'
import json, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()
# Tool calls run off the loop (ping answers meanwhile): responses are matched by id, not order.
got = {g["id"]: g for g in (json.loads(l) for l in lines)}
assert sorted(got) == [1, 2, 3], got
assert "\ufffd" in json.dumps(got[2]["result"]["structuredContent"]["workspace"], ensure_ascii=False), got[2]
PYSRC
then echo "ok mcp"; else echo "FAIL mcp"; cat "$WORK/out/mcp.err"; fail=1; fi
exit $fail
