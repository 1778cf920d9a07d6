#!/usr/bin/env bash
# test_jax_profiles.sh: framework = "jax" profiles end to end on the real JAX
# and Flax models of jax_workspace/ (copied to a temporary folder):
#   tvis check  the seed's GoodNet as a Flax module ([2,2] and [3,2]), an nnx
#               module (rngs from the profile's seed), a plain function with
#               a dict output (typed inputs, and an input factory's named arrays), a Flax CNN in eval and train mode (BatchNorm
#               traced with its statistics mutable), a factory with its own
#               variables and a factory that returns another class (refused),
#               dot_general and conv_general_dilated failures reported from
#               their operands (one re-raised with a misleading message, one
#               misleading message with no operator failing: generic), a
#               class that is not a Flax module, a binding error, a timeout,
#               the seed, deterministic and cwd applied before the import;
#   tvis profiles  Flax classes (framework jax, __call__) and JAX functions, from source;
#   tvis graph  a transformer whose jaxpr outgrows the default 4 MiB capture
#               budget (truncated) and fits once max_capture_bytes is 16 MiB;
#               node names are the Flax module paths;
#   tvis mcp    check and graph of a JAX profile as tools;
#   tvis-view   the Graph page of a JAX capture (under Xvfb, when there).
# Exit 0 pass, 77 skip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${TVIS_E2E_BIN:-$ROOT/build/bin}"
TVIS="$BIN/tvis"
[ -x "$TVIS" ] || { echo "skip: no built tvis at $TVIS (TVIS_E2E_BIN names another build's bin/)" >&2; exit 77; }
PY="${TVIS_TEST_PYTHON:-$ROOT/build/venv/bin/python}"  # build/venv holds jax and flax (tools/requirements-venv.txt)
"$PY" -c "import jax, flax" 2>/dev/null || { echo "FAIL: $PY has no jax/flax (tools/bootstrap installs them)" >&2; exit 1; }
WORK="$(mktemp -d /tmp/tvis-jax-e2e.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache"
cp -r "$ROOT/tests/profiles/jax_workspace" "$WORK/ws"
mkdir -p "$WORK/out"
cd "$WORK/ws"

run() {  # run NAME tvis-ARGS...: keeps stdout, stderr and the exit code
  local name="$1"; shift
  local rc=0
  "$TVIS" "$@" --python "$PY" --json > "$WORK/out/$name.json" 2> "$WORK/out/$name.err" || rc=$?
  echo "$rc" > "$WORK/out/$name.rc"
}
for p in jax_small jax_large nnx_mlp plain_function input_factory cnn cnn_train factory_built factory_wrong dot_mismatch \
         conv_mismatch misleading misleading_no_op not_a_module binding_missing sleeps settings_probe; do
  run "$p" check --profile "$p"
done
"$TVIS" profiles --python "$PY" --json > "$WORK/out/profiles.json"
"$PY" - "$WORK/out/profiles.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
classes = {c["class"]: c for c in j["classes"]}
assert j["valid"] and all(p["valid"] and p["framework"] == "jax" for p in j["profiles"]), j["errors"]
assert classes["jax_models:GoodNet"]["framework"] == "jax" and classes["jax_models:GoodNet"]["forward"] == "__call__(self, x)", classes
assert classes["jax_models:NnxMlp"]["base"] == "flax.nnx.Module", classes["jax_models:NnxMlp"]
assert "jax_models:mlp" in [f["function"] for f in j["jax_functions"]], j["jax_functions"]
print("tvis profiles: Flax classes and JAX functions found, nothing imported")
PY
run graph_cnn graph --profile cnn --out "$WORK/runs"
run graph_dot graph --profile dot_mismatch --out "$WORK/runs"
run graph_default graph --profile transformer --out "$WORK/runs"
run graph_raised graph --profile transformer_budget --out "$WORK/runs"

"$PY" - "$WORK/out" <<'PY'
import json, os, sys
out = sys.argv[1]
failures = []

def load(name):
    rc = int(open(os.path.join(out, name + ".rc")).read())
    text = open(os.path.join(out, name + ".json")).read()
    return rc, (json.loads(text) if text.strip() else None), open(os.path.join(out, name + ".err")).read()

def expect(name, cond, what):
    if not cond:
        failures.append("%s: %s" % (name, what))

def ok(name, outputs):
    rc, j, err = load(name)
    expect(name, rc == 0 and j and j["ok"], "exit %d, %s %s" % (rc, j and j.get("diagnostics"), err))
    if j:
        got = [(o["name"], o["shape"], o["dtype"]) for o in j["outputs"]]
        expect(name, got == outputs, "outputs %s (want %s)" % (got, outputs))
        expect(name, j["stage"] is None and j["diagnostics"] == [] and j["torch"] is None and j["jax"] == "0.10.2",
               "stage/diagnostics/torch/jax on success: %s %s %s" % (j["stage"], j["torch"], j.get("jax")))
    return j

def failed(name, stage, kind, contains=(), operands=None):
    rc, j, err = load(name)
    expect(name, rc == 1 and j and j["ok"] is False, "exit %d (want 1) %s" % (rc, err))
    if not j:
        return None
    expect(name, j["stage"] == stage, "stage %r (want %r)" % (j["stage"], stage))
    d = j["diagnostics"][0] if j["diagnostics"] else {}
    expect(name, d.get("kind") == kind, "kind %r (want %r): %s" % (d.get("kind"), kind, d))
    for c in contains:
        expect(name, c in d.get("message", ""), "message %r lacks %r" % (d.get("message"), c))
    if operands is not None:
        expect(name, [(o["name"], o["shape"], o["dtype"]) for o in d.get("operands", [])] == operands, "operands %s" % d.get("operands"))
    for dd in j["diagnostics"]:
        expect(name, "Traceback" not in dd["message"], "a traceback in the diagnostic")
    return j

ok("jax_small", [("output", [2, 2], "float32")])
ok("jax_large", [("output", [3, 2], "float32")])
j = ok("nnx_mlp", [("output", [2, 3], "float32")])
expect("nnx_mlp", j and j["nodes"] >= 5, "nodes %s" % (j and j["nodes"]))
ok("plain_function", [("output.hidden", [2, 5], "float32"), ("output.total", [2], "float32")])
ok("input_factory", [("output.hidden", [3, 5], "float32"), ("output.total", [3], "float32")])  # named inputs x, w
ok("cnn", [("output", [2, 5], "float32")])
j = ok("cnn_train", [("output", [2, 5], "float32")])
expect("cnn_train", j and load("cnn")[1] and j["nodes"] > load("cnn")[1]["nodes"], "train mode traces the batch statistics: more nodes than eval")
ok("factory_built", [("output", [2, 6], "float32")])
failed("factory_wrong", "factory", "setup", ["returned jax_models.GoodNet, not exactly jax_models:Scaled"])
lhs_rhs = [("lhs", [2, 4], "float32"), ("rhs", [8, 2], "float32")]
failed("dot_mismatch", "forward", "shape", ["dot_general in DotMismatch", "lhs [2, 4] dim 1 and rhs [8, 2] dim 0 are contracted: 4 ≠ 8"], lhs_rhs)
failed("conv_mismatch", "forward", "shape", ["conv_general_dilated in ConvMismatch", "rhs [3, 3, 1, 8] takes 1 input feature(s) (dim 2)",
                                            "lhs [1, 8, 8, 3] has 3 (dim 3)"],
       [("lhs", [1, 8, 8, 3], "float32"), ("rhs", [3, 3, 1, 8], "float32")])
j = failed("misleading", "forward", "shape", ["4 ≠ 8"], lhs_rhs)
expect("misleading", j and "[7, 9]" not in json.dumps(j["diagnostics"]), "the exception's invented shape reached a diagnostic")
j = failed("misleading_no_op", "forward", "forward", ["raised ValueError"])
expect("misleading_no_op", j and "[7, 9]" not in json.dumps(j["diagnostics"]) and not j["diagnostics"][0]["operands"],
       "a misleading message with no failing operator must stay generic: %s" % (j and j["diagnostics"]))
failed("not_a_module", "import", "setup", ["not a Flax module"])
failed("binding_missing", "binding", "binding", ["mlp(): missing w"])
failed("sleeps", "forward", "timeout", ["15000 ms", "limits.timeout_ms"])
# seed = 77, deterministic (default) and cwd are applied before the model's module is imported:
# jax_probe.py reports its import-time draws and what it saw as output lengths.
import random, numpy
random.seed(77)
numpy.random.seed(77)
py_draw, np_draw = random.randint(1, 50), int(numpy.random.randint(1, 50))
rc, j, err = load("settings_probe")
expect("settings_probe", rc == 0 and j and [o["shape"] for o in j["outputs"]] == [[py_draw], [np_draw], [1], [len("probe_cwd")], [2]],
       "exit %d, outputs %s (want Python %d, NumPy %d, XLA deterministic, cwd probe_cwd)" % (rc, j and [o["shape"] for o in j["outputs"]], py_draw, np_draw))

rc, g, err = load("graph_cnn")
expect("graph_cnn", rc == 0 and g and g["run"] and os.path.isfile(g["run"]) and not g["truncated"], "exit %d %s" % (rc, err))
rc, g, err = load("graph_dot")
expect("graph_dot", rc == 1 and g and g["run"] and g["partial"] and "evidence from this input only" in (g["label"] or ""),
       "a failed capture keeps its partial graph, labelled: exit %d %s" % (rc, g))
rc, d, err = load("graph_default")
expect("graph_default", rc == 0 and d and d["truncated"], "the 220-layer transformer within 4 MiB: exit %d truncated %s" % (rc, d and d["truncated"]))
rc, r, err = load("graph_raised")
expect("graph_raised", rc == 0 and r and not r["truncated"] and d and r["nodes"] > d["nodes"],
       "max_capture_bytes = 16 MiB keeps the whole graph: exit %d %s vs %s nodes" % (rc, r and r["nodes"], d and d["nodes"]))
for f in failures:
    print("FAIL: " + f)
print("jax profiles: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
PY

# tvis mcp: the same engine as a tool.
"$PY" - "$TVIS" "$WORK/ws" "$PY" <<'PY'
import json, subprocess, sys
tvis, ws, py = sys.argv[1:4]
p = subprocess.Popen([tvis, "mcp", "--workspace", ws, "--python", py], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True)
def call(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())
call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
r = call(2, "tools/call", {"name": "check", "arguments": {"profile": "jax_large"}})["result"]
s = r["structuredContent"]
assert r["isError"] is False and [o["shape"] for o in s["outputs"]] == [[3, 2]], r
r = call(3, "tools/call", {"name": "check", "arguments": {"profile": "conv_mismatch"}})["result"]
d = r["structuredContent"]["diagnostics"][0]
assert r["isError"] is True and d["kind"] == "shape" and [o["name"] for o in d["operands"]] == ["lhs", "rhs"], r
r = call(4, "tools/call", {"name": "graph", "arguments": {"profile": "cnn"}})["result"]
assert r["isError"] is False and r["structuredContent"]["run"], r
p.stdin.close()
assert p.wait(timeout=60) == 0
print("mcp: ok")
PY

# The Graph page of tvis-view opens JAX captures (the browser reads the same runs): the CNN laid out
# by dot, a node selected by its Flax module path; the 220-layer transformer's 16,000 nodes laid out
# in layers (dot would take many minutes).
command -v xvfb-run >/dev/null || { echo "skip: xvfb-run not installed (the checks above passed)" >&2; exit 77; }
[ -x "$BIN/tvis-view" ] || { echo "FAIL: $BIN/tvis-view missing" >&2; exit 1; }
view() {  # view NAME GRAPH_JSON ARGS...
  local name="$1" run; run="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"])' "$WORK/out/$2.json")"; shift 2
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$run" "$@" --size 1400x900 --frames 12 \
    --screenshot "$WORK/out/$name.png" --state-json "$WORK/out/$name.state.json" 2>"$WORK/out/$name.view.err" \
    || { echo "FAIL: tvis-view ($name) exited $?: $(cat "$WORK/out/$name.view.err")"; exit 1; }
}
view view_cnn graph_cnn --module FlaxCNN/conv2
view view_transformer graph_raised
"$PY" - "$WORK/out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n): return json.load(open(os.path.join(out, n)))
s, g = load("view_cnn.state.json"), load("graph_cnn.json")
v = s["view"]
assert s["page"] == "Graph" and s["errors"] == [], s
assert v["nodes"] == g["nodes"] and v["failed"] is None and v["layout"].startswith("graphviz dot"), (v, g["nodes"])
assert v["selected"] and v["selected"]["module"] == "FlaxCNN/conv2", v["selected"]
s, g = load("view_transformer.state.json"), load("graph_raised.json")
v = s["view"]
assert s["page"] == "Graph" and s["errors"] == [] and v["nodes"] == g["nodes"] > 15000, (v, g["nodes"])
assert v["layout"].startswith("tvis layered"), v["layout"]
print("tvis-view Graph page: ok (CNN %d nodes by dot, transformer %d nodes layered)" % (load("graph_cnn.json")["nodes"], v["nodes"]))
PY
if [ -n "${TVIS_E2E_OUT:-}" ]; then mkdir -p "$TVIS_E2E_OUT" && cp "$WORK/out"/view_*.png "$TVIS_E2E_OUT/"; fi
echo "PASS test_jax_profiles"
