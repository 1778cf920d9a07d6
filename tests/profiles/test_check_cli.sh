#!/usr/bin/env bash
# test_check_cli.sh: the built `tvis check` on the real torch models of
# check_workspace/ (copied to a temporary folder): the seed's GoodNet
# profiles ([2,2] and [3,2]), a factory-built Whisper-like model, input
# factories (named inputs; {args, kwargs} with a repeated tensor), each setup
# stage failing with its name, the timeout (a forward that sleeps, killed),
# binding errors with the parameter names, the linear / matmul / bmm / conv /
# embedding diagnostics from operands, a misleading exception, automatic
# inputs (and a failed guess), a declaration, every setting applied before
# the model's import (Python / NumPy / torch seeds, deterministic, cwd,
# grad_enabled, each input generator's own seed: settings_probe.py), a
# factory's namesake class refused, and exit 2 for an invalid configuration. Tracebacks must be in the named log, never in a diagnostic.
# Exit 0 pass, 77 skip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TVIS="${TVIS_E2E_BIN:-$ROOT/build/bin}/tvis"
[ -x "$TVIS" ] || { echo "skip: no built tvis at $TVIS (TVIS_E2E_BIN names another build's bin/)" >&2; exit 77; }
PY="${TVIS_TEST_PYTHON:-$ROOT/build/venv/bin/python}"  # the newest torch; tools/test sets it
"$PY" -c "import torch" 2>/dev/null || { echo "skip: $PY has no torch" >&2; exit 77; }
WORK="$(mktemp -d /tmp/tvis-check-e2e.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache"
cp -r "$ROOT/tests/profiles/check_workspace" "$WORK/ws"
mkdir -p "$WORK/out"
cd "$WORK/ws"

# check NAME ARGS...: runs tvis check --json, keeps stdout, stderr and the exit code.
check() {
  local name="$1"; shift
  local t0=$SECONDS rc=0
  "$TVIS" check --python "$PY" --json "$@" > "$WORK/out/$name.json" 2> "$WORK/out/$name.err" || rc=$?
  echo "$rc $((SECONDS - t0))" > "$WORK/out/$name.rc"
}
for p in audit_small audit_large two_blocks sleeps binding_missing binding_unexpected named_inputs args_kwargs_inputs \
         inputs_not_dict inputs_raise linear_mismatch matmul_mismatch bmm_mismatch conv_channels embedding_range \
         embedding_float linear_dtype misleading misleading_no_op assertion import_fails device_missing \
         checkpoint_missing init_unexpected init_missing whisper factory_subclass factory_kwargs seeded tiny_budget \
         settings_probe settings_default factory_namesake; do
  check "$p" --profile "$p"
done
for c in AutoLinear AutoConv AutoEmbedding AutoFails AutoVariadic AutoKeywordOnly Declared; do check "$c" "auto_models:$c"; done
check choose audit_models:GoodNet
check no_such_profile --profile nope

# An invalid configuration refuses every request (exit 2, the field named).
mkdir -p "$WORK/bad" && cp "$WORK/ws/audit_models.py" "$WORK/ws/services" -r "$WORK/bad/"
printf 'version = 1\n[profiles.p]\nkind = "model"\nmodel = "audit_models:GoodNet"\nmode = "eval"\ndevice = "cpu"\ngrad_enabled = false\ntimeout_ms = 5\n[profiles.p.init]\nargs = []\nkwargs = {}\n[profiles.p.inputs]\nargs = []\nkwargs = {}\n' > "$WORK/bad/tensorviz.toml"
(cd "$WORK/bad" && check invalid_config --profile p)

"$PY" - "$WORK/out" <<'PY'
import json, os, sys
out = sys.argv[1]
failures = []

def load(name):
    rc, secs = open(os.path.join(out, name + ".rc")).read().split()
    text = open(os.path.join(out, name + ".json")).read()
    err = open(os.path.join(out, name + ".err")).read()
    return int(rc), int(secs), (json.loads(text) if text.strip() else None), err

def expect(name, cond, what):
    if not cond:
        failures.append("%s: %s" % (name, what))

def ok(name, shapes):
    rc, _, j, err = load(name)
    expect(name, rc == 0 and j and j["ok"], "exit %d, %s %s" % (rc, j and j.get("diagnostics"), err))
    if j:
        expect(name, [o["shape"] for o in j["outputs"]] == shapes, "outputs %s" % j["outputs"])
        expect(name, j["stage"] is None and j["diagnostics"] == [], "stage/diagnostics on success")
    return j

def failed(name, stage, kind, contains=(), excludes=(), operands=None):
    rc, secs, j, err = load(name)
    expect(name, rc == 1 and j and j["ok"] is False, "exit %d (want 1) %s" % (rc, err))
    if not j:
        return None
    expect(name, j["stage"] == stage, "stage %r (want %r)" % (j["stage"], stage))
    expect(name, set(["ok", "profile", "stage", "outputs", "diagnostics"]) <= set(j), "keys %s" % sorted(j))
    d = j["diagnostics"][0] if j["diagnostics"] else {}
    expect(name, d.get("kind") == kind, "kind %r (want %r): %s" % (d.get("kind"), kind, d))
    for c in contains:
        expect(name, c in d.get("message", ""), "message %r lacks %r" % (d.get("message"), c))
    for c in excludes:
        expect(name, c not in d.get("message", ""), "message %r has %r" % (d.get("message"), c))
    if operands is not None:
        expect(name, [(o["name"], o["shape"], o["dtype"]) for o in d.get("operands", [])] == operands,
               "operands %s" % d.get("operands"))
    for dd in j["diagnostics"]:
        expect(name, "Traceback" not in dd["message"] and "File \"" not in dd["message"], "a traceback in the diagnostic")
    expect(name, j["log"] and os.path.isfile(j["log"]), "no log file %r" % j["log"])
    return j

ok("audit_small", [[2, 2]])
ok("audit_large", [[3, 2]])
j = ok("two_blocks", [[2, 2]])
expect("two_blocks", j and j["nodes"] == 6, "nodes %s (input, left, right, ReLU, Linear, output)" % (j and j["nodes"]))
ok("named_inputs", [[2, 2]])
ok("args_kwargs_inputs", [[3]])            # SameTensor asserts `a is b`: the repeated reference is kept
ok("whisper", [[1, 4, 32]])
# The seed is applied before the model's module is imported: its import-time draw is torch.manual_seed(1234)'s.
import subprocess
n = int(subprocess.check_output([sys.executable, "-c", "import torch; torch.manual_seed(1234); print(int(torch.randint(1, 50, (1,)).item()))"]))
ok("seeded", [[n]])
# Every setting is applied before the import (settings_probe.py reports each as an output's length):
# Python's and NumPy's seeds, deterministic, cwd, grad_enabled in train mode, and each input its own generator seed.
import random, numpy, torch
def code(t):
    return int(t.double().abs().sum().item() * 1000) % 97 + 1
def normal(shape, seed):
    return torch.empty(shape, dtype=torch.float32).normal_(0.0, 1.0, generator=torch.Generator().manual_seed(seed))
def uniform(shape, seed):
    return torch.empty(shape, dtype=torch.float32).uniform_(0.0, 1.0, generator=torch.Generator().manual_seed(seed))
random.seed(77)
numpy.random.seed(77)
py_draw, np_draw = random.randint(1, 50), int(numpy.random.randint(1, 50))
ok("settings_probe", [[py_draw], [np_draw], [1], [len("probe_cwd")], [2], [code(normal([2, 3], 5))], [code(uniform([4], 5 + 1))]])
rc, secs, j, err = load("settings_default")  # unseeded draws: their lengths are not predictable
shapes = [o["shape"] for o in j["outputs"]] if j else []
expect("settings_default", rc == 0 and shapes[2:] == [[2], [len("ws")], [1], [code(normal([2, 3], 6))], [code(uniform([4], 5))]],
       "exit %d, outputs %s (deterministic by default, the workspace root as cwd, no grad)" % (rc, shapes))
j = ok("tiny_budget", [[2, 4]])
expect("tiny_budget", j and j["truncated"] and j["nodes"] < 10, "max_capture_bytes = 1024: truncated %s, nodes %s" % (j and j["truncated"], j and j["nodes"]))
ok("Declared", [[3, 2]])
for name, shape, derived in (("AutoLinear", [[1, 2]], "[1, 4] float32"), ("AutoConv", [[1, 4]], "[1, 3, 32, 32] float32"),
                             ("AutoEmbedding", [[1, 1, 8]], "[1, 1] int64")):
    j = ok(name, shape)
    expect(name, j and j["source"] == "automatic" and derived in (j["automatic"] or ""), "automatic %s" % (j and j["automatic"]))

j = failed("sleeps", "forward", "timeout", ["5000 ms", "limits.timeout_ms"])
expect("sleeps", load("sleeps")[1] < 20, "the sleeping forward was not stopped at its limit (%d s)" % load("sleeps")[1])
j = failed("binding_missing", "binding", "binding", ["missing mask"])
expect("binding_missing", j and j["diagnostics"][0]["parameters"]["missing"] == ["mask"], "parameters")
j = failed("binding_unexpected", "binding", "binding", ["unexpected bogus"])
expect("binding_unexpected", j and j["diagnostics"][0]["parameters"]["unexpected"] == ["bogus"], "parameters")
failed("inputs_not_dict", "inputs", "setup", ["returned a list"])
failed("inputs_raise", "inputs", "setup", ["KeyError"], ["no such dataset split"])
failed("linear_mismatch", "forward", "shape", ["linear in fc", "inner dims 4 ≠ 8"],
       operands=[("input", [2, 4], "float32"), ("weight", [2, 8], "float32")])
failed("matmul_mismatch", "forward", "shape", ["input [2, 4] @ other [8, 2]: inner dims 4 ≠ 8"])
failed("bmm_mismatch", "forward", "shape", ["inner dims 4 ≠ 5"])
failed("conv_channels", "forward", "shape", ["weight [8, 3, 3, 3] expects 3 input channels", "has 1 at dim 1"])
failed("embedding_range", "forward", "index", ["index 11 out of range of num_embeddings 10"])
failed("embedding_float", "forward", "dtype", ["float32", "int64"])
failed("linear_dtype", "forward", "dtype", ["input is float64, weight is float32"])
j = failed("misleading", "forward", "shape", ["inner dims 4 ≠ 8"], ["7", "9"])
expect("misleading", j and j["partial"] and "evidence from this input only" in (j["label"] or ""), "label %s" % (j and j["label"]))
j = failed("misleading_no_op", "forward", "forward", [], ["5x5", "6x6", "mat1"], operands=[])
failed("assertion", "forward", "assertion", [], ["need 5"])
failed("import_fails", "import", "setup", ["a_module_that_is_not_installed"])
failed("device_missing", "device", "setup", ["cuda:7"])
failed("checkpoint_missing", "fixture", "setup", ["weights/missing.pt"])
j = failed("init_unexpected", "construction", "binding", ["unexpected depth", "missing width"])
failed("init_missing", "construction", "binding", ["missing width"])
failed("factory_subclass", "factory", "setup", ["NotWhisper", "not exactly whisperish.model:Whisper"])
failed("factory_namesake", "factory", "setup", ["namesake.Whisper", "not exactly whisperish.model:Whisper"])
failed("factory_kwargs", "factory", "binding", ["unexpected depth", "missing width"])
j = failed("AutoFails", "forward", "shape", ["inner dims 3 ≠ 5"])
expect("AutoFails", j and j["label"] == "failed guess", "label %s" % (j and j["label"]))
j = failed("AutoVariadic", "inputs", "setup", ["*xs", "give a profile"])
expect("AutoVariadic", j and j["label"] != "failed guess", "a refusal is not a guess")
failed("AutoKeywordOnly", "inputs", "setup", ["keyword-only mask"])
# The log holds the traceback the diagnostic leaves out.
j = load("import_fails")[2]
expect("import_fails", "Traceback" in open(j["log"]).read(), "no traceback in the log")

for name, text in (("choose", "several profiles match"), ("no_such_profile", "nope"),
                   ("invalid_config", "profiles.p.timeout_ms")):
    rc, _, j, err = load(name)
    expect(name, rc == 2 and text in err, "exit %d, stderr %r" % (rc, err))
    expect(name, j and j["ok"] is False and j["diagnostics"], "--json of a refusal: %s" % j)
j = load("invalid_config")[2]
expect("invalid_config", j and j["stage"] == "config" and j["diagnostics"][0]["field"] == "profiles.p.timeout_ms",
       "config diagnostic %s" % (j and j["diagnostics"]))

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("test_check_cli: all checks passed")
PY
