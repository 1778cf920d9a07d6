#!/usr/bin/env bash
# test_profiles_cli.sh: the built `tvis profiles` on real workspaces written
# here: the seed's two GoodNet profiles (valid, exit 0, JSON keys), a model
# module that raises on import and a workspace ast.py/json.py that would
# shadow the reader's modules (nothing imported: the run succeeds), and each
# unusable config (malformed, misplaced timeout_ms, directory, broken
# symlink) exiting 2 with its specific message. Exit 0 pass, 77 skip.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TVIS="${TVIS_E2E_BIN:-$ROOT/build/bin}/tvis"
[ -x "$TVIS" ] || { echo "skip: no built tvis at $TVIS (TVIS_E2E_BIN names another build's bin/)" >&2; exit 77; }
PY="${TVIS_TEST_PYTHON:-$ROOT/build/venv/bin/python}"  # the newest torch; tools/test sets it
WORK="$(mktemp -d /tmp/tvis-profiles-e2e.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

ws="$WORK/ws"; mkdir -p "$ws/sub"
cat > "$ws/audit_models.py" <<'PY'
import torch
from torch import nn
open(__file__ + ".imported", "w").write("imported")
raise RuntimeError("this module must never be imported by tvis profiles")

# tensorviz: input=2,4
class GoodNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
PY
for m in ast json tokenize; do printf 'open(__file__ + ".imported", "w").write("x")\nraise SystemExit(3)\n' > "$ws/$m.py"; done
{
  echo 'version = 1'
  for name in audit_small:2 audit_large:3; do
    n="${name%%:*}" b="${name##*:}"
    printf '\n[profiles.%s]\nkind = "model"\nmodel = "audit_models:GoodNet"\nmode = "eval"\ndevice = "cpu"\ngrad_enabled = false\nlimits = { timeout_ms = 30000 }\n' "$n"
    printf '[profiles.%s.init]\nargs = []\nkwargs = {}\n[profiles.%s.inputs]\n' "$n" "$n"
    printf 'args = [{kind="tensor", shape=[%s,4], dtype="float32", requires_grad=false, generator={kind="full", value=1}}]\nkwargs = {}\n' "$b"
  done
} > "$ws/tensorviz.toml"

# Valid: exit 0, found upward from a subfolder, the JSON keys of docs/profiles.md (`tvis profiles`'s "`--json`").
(cd "$ws/sub" && "$TVIS" profiles --python "$PY" --json) > "$WORK/out.json" || fail "valid workspace exited $?"
ls "$ws"/*.imported 2>/dev/null && fail "a workspace module was imported"
"$PY" - "$WORK/out.json" "$ws" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["workspace"] == sys.argv[2] and j["valid"] is True, j
assert [p["name"] for p in j["profiles"]] == ["audit_small", "audit_large"]
for p in j["profiles"]:
    assert set(["name", "model", "kind", "valid", "errors"]) <= set(p) and p["valid"] and p["errors"] == []
[c] = j["classes"]
assert c["class"] == "audit_models:GoodNet" and c["file"] == "audit_models.py" and c["line"] == 7, c
assert c["forward"] == "forward(self, x)" and c["declaration"]["inputs"] == [[2, 4]], c
req = {(r["request"]["class"], r["request"]["profile"]): r["resolution"] for r in j["requests"]}
assert req[("audit_models:GoodNet", None)]["status"] == "choose"
assert req[("audit_models:GoodNet", None)]["candidates"] == ["audit_small", "audit_large"]
assert req[(None, "audit_large")]["status"] == "profile"
PY

# expect_invalid DESCRIPTION EXPECTED_TEXT: exit 2 and the text on stdout or stderr.
expect_invalid() {
  local rc=0
  "$TVIS" profiles --workspace "$ws" --python "$PY" > "$WORK/out.txt" 2>&1 || rc=$?
  [ "$rc" = 2 ] || { cat "$WORK/out.txt"; fail "$1: exit $rc, not 2"; }
  grep -qF -- "$2" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "$1: no '$2'"; }
}
cp "$ws/tensorviz.toml" "$WORK/good.toml"
sed -i 's/^limits = { timeout_ms = 30000 }$/timeout_ms = 30000/' "$ws/tensorviz.toml"
expect_invalid "bare timeout_ms" "tensorviz.toml:9:14: profiles.audit_small.timeout_ms: timeout_ms belongs inside limits"
printf 'version = 1\n[profiles.x\n' > "$ws/tensorviz.toml"
expect_invalid "malformed TOML" "tensorviz.toml:2:"
rm "$ws/tensorviz.toml"; mkdir "$ws/tensorviz.toml"
expect_invalid "directory" "$ws/tensorviz.toml is a directory, not a file"
rmdir "$ws/tensorviz.toml"; ln -s "$WORK/missing.toml" "$ws/tensorviz.toml"
expect_invalid "broken symlink" "$ws/tensorviz.toml is a symlink to $WORK/missing.toml, which does not exist"
rm "$ws/tensorviz.toml"

# No tensorviz.toml: valid, the declaration gives the example.
"$TVIS" profiles --workspace "$ws" --python "$PY" > "$WORK/out.txt" || fail "no config exited $?"
grep -qF "audit_models:GoodNet -> declaration: input=2,4 (line 6)" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "declaration not resolved"; }
ls "$ws"/*.imported 2>/dev/null && fail "a workspace module was imported"
echo "test_profiles_cli: passed"
