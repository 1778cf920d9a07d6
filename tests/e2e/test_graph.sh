#!/usr/bin/env bash
# The Graph page over real captures: `tvis graph` on tests/profiles/
# check_workspace (TwoBlocks: ok, 6 nodes / 6 edges; LinearMismatch: exit 1,
# the partial graph with fc failing and its operand diagnostic), then
#   - tvis-view under Xvfb: Graph is the default page of a capture, its view
#     (nodes, edges, failed, diagnostic, label), --module selects a node for
#     the inspector; a training run (tests/data/golden_v1.tvis) has no Graph;
#   - headless Chromium ($WEB's viewer.html): the same state(), and a
#     click on a node selects it, a wheel over the canvas changes the zoom,
#     ?module= selects a node.
# Screenshots land in $OUT (look at them).
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
[ -x "$BIN/tvis" ] || fail "$BIN/tvis missing"
"$TEST_PY" -c 'import torch' 2>/dev/null || fail "$TEST_PY has no torch (tools/bootstrap installs it)"
cp -r "$ROOT/tests/profiles/check_workspace" "$WORK/ws"
export XDG_CACHE_HOME="$WORK/cache"

graph() {  # graph PROFILE WANT_EXIT: prints the run.tvis it wrote
  local rc=0
  (cd "$WORK/ws" && "$BIN/tvis" graph --python "$TEST_PY" --profile "$1" --out "$WORK/runs" --json) \
    >"$OUT/graph_$1.json" 2>"$OUT/graph_$1.err" || rc=$?
  [ "$rc" = "$2" ] || fail "tvis graph --profile $1 exited $rc (want $2): $(cat "$OUT/graph_$1.err")"
  "$TEST_PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"])' "$OUT/graph_$1.json"
}

view() {  # view NAME RUN ARGS...
  local name="$1" run="$2"; shift 2
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$run" "$@" --size 1400x900 --frames 12 \
    --screenshot "$OUT/$name.png" --state-json "$OUT/$name.json" 2>"$OUT/$name.stderr" \
    || fail "tvis-view ($name) exited $?: $(cat "$OUT/$name.stderr")"
}

OK_RUN="$(graph two_blocks 0)"
FAIL_RUN="$(graph linear_mismatch 1)"
[ -f "$(dirname "$FAIL_RUN")/worker.log" ] || fail "no worker.log beside $FAIL_RUN"
view graph_ok "$OK_RUN"
view graph_failed "$FAIL_RUN"
view graph_failed_fc "$FAIL_RUN" --module fc
view training "$ROOT/tests/data/golden_v1.tvis"

"$TEST_PY" - "$OUT" <<'PY' || fail "native Graph page state (see $OUT/*.json)"
import json, os, sys
out = sys.argv[1]
def st(n): return json.load(open(os.path.join(out, n + ".json")))
s = st("graph_ok")
assert s["page"] == "Graph" and s["pages"] == ["Graph"] and s["errors"] == [], s
v = s["view"]
assert (v["nodes"], v["edges"], v["failed"], v["diagnostic"], v["stale"]) == (6, 6, None, None, False), v
assert v["layout"].startswith("graphviz dot"), v
s = st("graph_failed")
v = s["view"]
assert s["page"] == "Graph" and v["failed"] == "fc" and v["stage"] == "forward" and v["partial"], v
assert "inner dims 4 ≠ 8" in v["diagnostic"] and "evidence from this input only" in v["label"], v
sel = st("graph_failed_fc")["view"]["selected"]
assert sel and sel["module"] == "fc" and sel["inputs"] == ["input[0] [2, 4] float32"], sel
s = st("training")
assert "Graph" not in s["pages"] and s["page"] == "Replay", (s["page"], s["pages"])
print("native Graph page: ok")
PY

[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap, or set TVIS_E2E_WEB)"
[ -d "$ROOT/tests/e2e/node_modules" ] || fail "tests/e2e/node_modules missing (run tools/bootstrap)"
{
  PORT="$(free_port)"
  mkdir -p "$WORK/site/runs"
  cp "$WEB"/viewer.* "$WORK/site/"
  cp "$OK_RUN" "$WORK/site/runs/ok.tvis"
  cp "$FAIL_RUN" "$WORK/site/runs/failed.tvis"
  start_nginx "$WORK/site" "$PORT"
  node "$ROOT/tests/e2e/graph/browser_graph.mjs" "http://127.0.0.1:$PORT" "$OUT" ok runs/ok.tvis || fail "browser: ok capture"
  node "$ROOT/tests/e2e/graph/browser_graph.mjs" "http://127.0.0.1:$PORT" "$OUT" failed runs/failed.tvis fc || fail "browser: failed capture"
  "$TEST_PY" - "$OUT" <<'PY' || fail "browser Graph page state (see $OUT/browser_*.json)"
import json, os, sys
out = sys.argv[1]
ok = json.load(open(os.path.join(out, "browser_ok.json")))["first"]
assert ok["page"] == "Graph" and ok["view"]["nodes"] == 6 and ok["view"]["edges"] == 6, ok["view"]
f = json.load(open(os.path.join(out, "browser_failed.json")))["first"]
assert f["view"]["failed"] == "fc" and "inner dims 4 ≠ 8" in f["view"]["diagnostic"], f["view"]
b = json.load(open(os.path.join(out, "browser_failed.json")))
assert b["linked"] == "fc" and b["clicked"] == "stem", (b["linked"], b["clicked"])
print("browser Graph page: ok")
PY
}
echo "graph e2e: ok (screenshots in $OUT)"
