#!/usr/bin/env bash
# test_mcp.sh: `tvis mcp` in a real client session over stdio
# (mcp_client_session.py, stdlib only) on a copy of check_workspace/ (real
# torch models) and on a copy with an invalid tensorviz.toml (a bare
# timeout_ms: every request refused with its field). Exit 0 pass, 77 skip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TVIS="${TVIS_E2E_BIN:-$ROOT/build/bin}/tvis"
[ -x "$TVIS" ] || { echo "skip: no built tvis at $TVIS (TVIS_E2E_BIN names another build's bin/)" >&2; exit 77; }
PY="${TVIS_TEST_PYTHON:-$ROOT/build/venv/bin/python}"  # the newest torch; tools/test sets it
"$PY" -c "import torch" 2>/dev/null || { echo "skip: $PY has no torch" >&2; exit 77; }
WORK="$(mktemp -d /tmp/tvis-mcp-e2e.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache"
cp -r "$ROOT/tests/profiles/check_workspace" "$WORK/ws"
mkdir -p "$WORK/bad"
cp -r "$WORK/ws/audit_models.py" "$WORK/ws/services" "$WORK/bad/"
printf 'version = 1\n[profiles.p]\nkind = "model"\nmodel = "audit_models:GoodNet"\nmode = "eval"\ndevice = "cpu"\ngrad_enabled = false\ntimeout_ms = 5\n[profiles.p.init]\nargs = []\nkwargs = {}\n[profiles.p.inputs]\nargs = []\nkwargs = {}\n' > "$WORK/bad/tensorviz.toml"
cd "$WORK"
"$PY" "$ROOT/tests/profiles/mcp_client_session.py" "$TVIS" "$WORK/ws" "$WORK/bad"
