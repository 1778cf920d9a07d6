#!/usr/bin/env bash
# test_readme_examples.sh: every ```sh example of README.md runs and exits 0.
#
# readme_examples.py extracts the examples (its docstring lists the rules:
# what is left out and why, what is rewritten). Each block runs with
# `bash -euo pipefail` in one scratch folder, in README order (later blocks
# use the runs earlier ones recorded), with build/bin first on PATH, a copy
# of examples/ and the example files the README marks with
# `<!-- file: NAME -->`. Serving commands are checked by the helpers below:
#   serve_check tvis open --no-browser ARGS...  the URL appears, its run list
#       (/api/runs with the token) is not empty, SIGINT stops it with exit 0;
#       for a WHERE that is not a local path, --ssh-config and --remote-tvis
#       are added so that gpu-box and login-node are the test's sshd and the
#       remote tvis is build/bin's.
#   mcp_check tvis mcp ARGS...  answers initialize and lists the tools
#       profiles, check, graph, diagnose and diff, and exits 0 at the end of
#       its input.
# Remote hosts: two sshd on 127.0.0.1 (tests/e2e/sshd.sh), aliases gpu-box
# and login-node; ~/project in the README is $WORK/project, holding a
# synthetic run. Targets are saved under $WORK/config (XDG_CONFIG_HOME).
# Env: TVIS_E2E_BIN (default build/bin: tvis with the recorder, tvis-synth).
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"
source "$ROOT/tests/e2e/sshd.sh"

[ -x "$BIN/tvis" ] || skip "$BIN/tvis is not built (tools/bootstrap)"
"$BIN/tvis" run --help >/dev/null 2>&1 || skip "$BIN/tvis has no recorder (tvis run)"

SCRATCH="$WORK/scratch"
PROJECT="$WORK/project"
EXTRACTED="$WORK/extracted"
mkdir -p "$SCRATCH" "$PROJECT/tvis_runs" "$WORK/config"
python3 "$ROOT/tests/docs/readme_examples.py" "$ROOT/README.md" "$EXTRACTED" "$PROJECT" \
  || fail "README.md's examples could not be extracted"
cp -r "$ROOT/examples" "$SCRATCH/examples"
rm -rf "$SCRATCH/examples/tvis_runs"
cp -r "$EXTRACTED/files/." "$SCRATCH/"
mkdir -p "$PROJECT/tvis_runs/20260101-000000_synthetic_000000"
synth_run "$PROJECT/tvis_runs/20260101-000000_synthetic_000000/run.tvis" 2

ssh_setup
start_sshd gpu-box "$(free_port)"
start_sshd login-node "$(free_port)"

# The helpers, written to a file every block sources.
cat > "$WORK/helpers.sh" <<'SH'
serve_check() {
  local out="$WORK/serve.out" err="$WORK/serve.err" pid url i rc=0 remote=()
  # WHERE (the last argument) is not a local path: HOST:PATH or a target.
  [ -e "${@: -1}" ] || remote=(--ssh-config "$SSH_CONFIG" --remote-tvis "$BIN/tvis")
  env --default-signal=INT "$1" "$2" "$3" "${remote[@]}" "${@:4}" >"$out" 2>"$err" &
  pid=$!
  for i in $(seq 1 600); do
    url="$(head -n 1 "$out" 2>/dev/null || true)"
    [[ "$url" == http://127.0.0.1:*'?token='* ]] && break
    kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; echo "serve_check: $* ended before printing its URL" >&2; return 1; }
    sleep 0.1
  done
  [[ "$url" == http://127.0.0.1:*'?token='* ]] || { kill "$pid"; echo "serve_check: no URL from $* in 60 s" >&2; return 1; }
  local base="${url%%/\?*}" token="${url#*token=}"
  local runs
  runs="$(curl -sS --max-time 60 "$base/api/runs?token=$token")" || { kill "$pid"; echo "serve_check: /api/runs failed" >&2; return 1; }
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert isinstance(r, list) and r and all(x.get("path") for x in r), r' "$runs" \
    || { kill "$pid"; echo "serve_check: $* lists no run: $runs" >&2; return 1; }
  echo "  serve_check: $(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])))' "$runs") run(s) listed at $base" >&2
  kill -INT "$pid"
  wait "$pid" || rc=$?
  [ "$rc" = 0 ] || { cat "$err" >&2; echo "serve_check: $* exited $rc after SIGINT" >&2; return 1; }
}

mcp_check() {
  local out
  out="$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | timeout 60 "$@" 2>"$WORK/mcp.err")" \
    || { cat "$WORK/mcp.err" >&2; echo "mcp_check: $* failed" >&2; return 1; }
  python3 - "$out" <<'PY' || { echo "mcp_check: unexpected answers: $out" >&2; return 1; }
import json, sys
answers = [json.loads(line) for line in sys.argv[1].splitlines() if line.strip()]
assert [a["id"] for a in answers] == [1, 2], answers
assert answers[0]["result"]["serverInfo"]["name"] == "tvis", answers[0]
tools = sorted(t["name"] for t in answers[1]["result"]["tools"])
assert tools == ["check", "diagnose", "diff", "graph", "profiles"], tools
PY
  echo "  mcp_check: initialize answered, tools check, diagnose, diff, graph, profiles" >&2
}
SH

export WORK BIN SSH_CONFIG XDG_CONFIG_HOME="$WORK/config"
export PATH="$BIN:$PATH"
n=0
for block in "$EXTRACTED"/block_*.sh; do
  where="$(head -n 1 "$block" | sed 's/^# //')"
  if ! (cd "$SCRATCH" && bash -euo pipefail -c 'source "$1"; source "$2"' _ "$WORK/helpers.sh" "$block") \
      >"$WORK/block.out" 2>"$WORK/block.err"; then
    tail -n 40 "$WORK/block.err" >&2
    fail "the example block at $where failed"
  fi
  cat "$WORK/block.err" >&2
  n=$((n + 1))
done
# The README's remote examples really went where they say.
[ "$(auth_count gpu-box)" = 3 ] || fail "the three gpu-box examples authenticated $(auth_count gpu-box) times on gpu-box, not once each"
[ "$(auth_count login-node)" = 2 ] || fail "--via login-node and the target authenticated $(auth_count login-node) times on login-node, not once each"
grep -q 'gpu' "$XDG_CONFIG_HOME/tvis/targets.toml" || fail "tvis target add saved nothing in \$XDG_CONFIG_HOME/tvis/targets.toml"
echo "left out, by rule:" >&2
sed 's/^/  /' "$EXTRACTED/skipped.txt" >&2
[ "$(wc -l < "$EXTRACTED/skipped.txt")" = 2 ] || fail "expected exactly tools/demo and tools/test to be left out"
echo "test_readme_examples: $n blocks of README.md ran"
