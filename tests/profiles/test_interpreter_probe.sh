#!/usr/bin/env bash
# test_interpreter_probe.sh (issue 46, security finding 6): choosing the
# interpreter never runs code of the folder tvis was started in or of the
# workspace, and never waits on an interpreter that does not answer.
#   - Planted modules (importlib/, encodings/, sitecustomize.py, each writing
#     a mark) in the current folder and in the workspace: `tvis check` (with
#     the workspace found from the current folder, with --workspace naming a
#     clean one, and on a refusal) and `tvis mcp`'s profiles and check tools
#     leave no mark. A planted importlib/ that sleeps does not hold up check.
#   - An interpreter that sleeps ($TVIS_PYTHON, the first candidate of
#     discovery): `tvis check` refuses within the probe's limit (10 s) naming
#     it; `tvis mcp` answers `ping` while the check call waits on it, then
#     the call fails with the same reason.
# Exit 0 pass, 77 skip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TVIS="$(realpath -m "${TVIS_E2E_BIN:-$ROOT/build/bin}/tvis")"
[ -x "$TVIS" ] || { echo "skip: no built tvis at $TVIS (TVIS_E2E_BIN names another build's bin/)" >&2; exit 77; }
PY="$(realpath -m "${TVIS_TEST_PYTHON:-$ROOT/build/venv/bin/python}")"
"$PY" -c "import torch" 2>/dev/null || { echo "skip: $PY has no torch" >&2; exit 77; }
WORK="$(mktemp -d /tmp/tvis-probe.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache" XDG_CONFIG_HOME="$WORK/config" TVIS_PYTHON="$PY"
mkdir -p "$WORK/out"
MARK="$WORK/ran"

# plant DIR: modules that a Python started in DIR (or with DIR on sys.path) would import, each leaving a mark.
plant() {
  mkdir -p "$1/importlib" "$1/encodings"
  printf 'open("%s", "a").write("importlib in %s\\n")\nfrom _frozen_importlib import *\n' "$MARK" "$1" > "$1/importlib/__init__.py"
  printf 'open("%s", "a").write("encodings in %s\\n")\n' "$MARK" "$1" > "$1/encodings/__init__.py"
  printf 'open("%s", "a").write("sitecustomize in %s\\n")\n' "$MARK" "$1" > "$1/sitecustomize.py"
}
WS="$WORK/ws"              # a workspace with planted modules
CLEAN="$WORK/clean"        # a workspace without
DIRTY="$WORK/dirty"        # a current folder with planted modules, outside both
cp -r "$ROOT/tests/profiles/check_workspace" "$WS"
cp -r "$ROOT/tests/profiles/check_workspace" "$CLEAN"
plant "$WS"
plant "$DIRTY"

fail=0
expect() {  # expect NAME CONDITION_TEXT: the condition is a shell test
  if eval "$2"; then echo "ok $1"; else echo "FAIL $1: $2"; fail=1; fi
}
no_mark() { [ ! -e "$MARK" ] || { echo "  marks: $(tr '\n' ';' < "$MARK")"; rm -f "$MARK"; return 1; }; }

cd "$WS"
rc=0; timeout 120 "$TVIS" check --json --profile two_blocks > "$WORK/out/ws.json" 2> "$WORK/out/ws.err" || rc=$?
expect check_in_workspace_runs_nothing_planted 'no_mark && [ "$rc" = 0 ]'
cd "$DIRTY"
rc=0; timeout 120 "$TVIS" check --json --workspace "$CLEAN" --profile two_blocks > "$WORK/out/clean.json" 2> "$WORK/out/clean.err" || rc=$?
expect check_with_workspace_flag_runs_nothing_planted 'no_mark && [ "$rc" = 0 ]'
rc=0; timeout 120 "$TVIS" check --json --workspace "$CLEAN" --profile no_such_profile > "$WORK/out/refused.json" 2> "$WORK/out/refused.err" || rc=$?
expect refusal_runs_nothing_planted 'no_mark && [ "$rc" = 2 ]'
cd "$WS"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"profiles","arguments":{}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"check","arguments":{"profile":"two_blocks"}}}' |
  timeout 120 "$TVIS" mcp --log "$WORK/out/mcp.log" > "$WORK/out/mcp.jsonl" 2> "$WORK/out/mcp.err" || true
expect mcp_runs_nothing_planted 'no_mark && [ "$(wc -l < "$WORK/out/mcp.jsonl")" = 3 ] && ! grep -q "isError\":true" "$WORK/out/mcp.jsonl"'

# A planted importlib/ that sleeps in the current folder: never imported, so check answers at once.
printf 'import time\ntime.sleep(120)\n' > "$DIRTY/importlib/__init__.py"
cd "$DIRTY"
t0=$SECONDS rc=0
timeout 60 "$TVIS" check --json --workspace "$CLEAN" --profile two_blocks > "$WORK/out/sleepy.json" 2> "$WORK/out/sleepy.err" || rc=$?
expect sleeping_planted_module_is_not_waited_for '[ "$rc" = 0 ] && [ $((SECONDS - t0)) -lt 60 ]'

# An interpreter that does not answer: the probe is killed at its limit and the request refused, naming it.
mkdir -p "$WORK/slow"
printf '#!/bin/sh\nsleep 120\n' > "$WORK/slow/python3"
chmod +x "$WORK/slow/python3"
cd "$CLEAN"
t0=$SECONDS rc=0
TVIS_PYTHON="$WORK/slow/python3" timeout 60 "$TVIS" check --json --profile two_blocks > "$WORK/out/slow.json" 2> "$WORK/out/slow.err" || rc=$?
took=$((SECONDS - t0))
expect slow_interpreter_refused_within_limit '[ "$rc" = 2 ] && [ "$took" -lt 20 ] && grep -q "slow/python3 did not answer the interpreter probe" "$WORK/out/slow.err"'

# tvis mcp with that interpreter: ping is answered while the check call waits on the probe; the call then fails.
TVIS_PYTHON="$WORK/slow/python3" "$PY" - "$TVIS" "$CLEAN" "$WORK/out/mcp_slow.log" <<'EOF' || fail=1
import json, queue, subprocess, sys, threading, time
tvis, ws, log = sys.argv[1:4]
p = subprocess.Popen([tvis, "mcp", "--workspace", ws, "--log", log], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
lines = queue.Queue()
threading.Thread(target=lambda: [lines.put(json.loads(l)) for l in p.stdout], daemon=True).start()
def send(msg):
    p.stdin.write((json.dumps(dict(msg, jsonrpc="2.0")) + "\n").encode()); p.stdin.flush()
def receive(within):
    try:
        return lines.get(timeout=within)
    except queue.Empty:
        return None
ok = True
def expect(name, cond, detail):
    global ok
    print(("ok " if cond else "FAIL ") + name + ("" if cond else ": %s" % (detail,)))
    ok = ok and bool(cond)
send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
expect("mcp_initialize", (receive(10) or {}).get("id") == 1, "no answer")
t0 = time.monotonic()
send({"id": 2, "method": "tools/call", "params": {"name": "check", "arguments": {"profile": "two_blocks"}}})
time.sleep(1)
send({"id": 3, "method": "ping"})
m = receive(5)
expect("mcp_ping_answered_during_probe", m is not None and m.get("id") == 3 and m.get("result") == {}, m)
m = receive(25)
took = time.monotonic() - t0
r = (m or {}).get("result", {})
text = json.dumps(r.get("structuredContent", {}))
expect("mcp_check_fails_within_probe_limit",
       m is not None and m.get("id") == 2 and r.get("isError") is True and "did not answer the interpreter probe" in text and took < 20,
       "after %.1f s: %s" % (took, m))
p.stdin.close()
try:
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill(); rc = "still running"
expect("mcp_exits_at_end_of_input", rc == 0, rc)
sys.exit(0 if ok else 1)
EOF
[ "$fail" = 0 ] || { for f in "$WORK"/out/*.err; do echo "== $f"; tail -5 "$f"; done; }
exit $fail
