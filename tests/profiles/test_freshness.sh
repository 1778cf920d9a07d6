#!/usr/bin/env bash
# test_freshness.sh: the interpreter resolver and pin, and the freshness of
# captures, with the built tvis (and tvis-view under Xvfb) on a copy of
# check_workspace/ and real torch:
#   - pinning: a wrapper interpreter that edits its own file on its first run
#     (the pin's probe) is refused before the worker starts (exit 2, stage
#     interpreter); one that edits itself while it runs the worker is
#     refused after; a refused `tvis graph` writes no run and keeps the
#     previous one ("Previous measurements retained");
#   - resolution order: --python beats everything; in a workspace the user
#     config trusts, the remembered `python` of .tensorviz-choices.toml beats
#     tensorviz.toml's [tool] python_path, which beats the user config's; a missing path from any of them
#     refuses, naming where it came from; `tvis run` resolves the same way
#     (the configured interpreter runs the script, --python beats it, a
#     missing one refuses before anything runs);
#   - cancel: SIGINT during a capture stops its worker (exit 130), writes no
#     run and keeps the request's previous one;
#   - the browser: the Graph page served by `tvis open` shows a capture stale
#     or fresh as tvis-view does (the server's /api/freshness);
#   - freshness: `tvis graph` again reopens an unchanged run as is
#     (--recapture captures anyway); after a source edit the old run is
#     stale (tvis inspect --json, tvis-view's Graph view and banner) and
#     graph captures again; a model that edits its own source during the
#     forward is not certified by tvis check (stage freshness, exit 1).
# Exit 0 pass, 77 skip (no tvis, no torch, no xvfb-run), else fail.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${TVIS_E2E_BIN:-$ROOT/build/bin}"
TVIS="$BIN/tvis"
[ -x "$TVIS" ] || { echo "skip: no built tvis at $TVIS (TVIS_E2E_BIN names another build's bin/)" >&2; exit 77; }
PY=/usr/bin/python3
"$PY" -c "import torch" 2>/dev/null || { echo "skip: $PY has no torch" >&2; exit 77; }
command -v xvfb-run >/dev/null || { echo "skip: xvfb-run not installed (tvis-view's Graph view)" >&2; exit 77; }
[ -x "$BIN/tvis-view" ] || { echo "FAIL: $BIN/tvis-view missing" >&2; exit 1; }
[ -d "$ROOT/tests/e2e/node_modules" ] || { echo "FAIL: tests/e2e/node_modules missing (tools/bootstrap installs it)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "FAIL: /usr/bin/chromium missing (tools/packages.txt)" >&2; exit 1; }
WORK="$(mktemp -d /tmp/tvis-freshness.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache" XDG_CONFIG_HOME="$WORK/config"
cp -r "$ROOT/tests/profiles/check_workspace" "$WORK/ws"
mkdir -p "$WORK/out" "$WORK/bin"
cd "$WORK/ws"

# An interpreter that edits its own file the first time it runs (the pin's probe runs it first).
cat > "$WORK/bin/edits_on_first_run" <<'SH'
#!/bin/sh
if [ ! -e "$0.ran" ]; then : > "$0.ran"; printf '# edited after its first run\n' >> "$0"; fi
exec /usr/bin/python3 "$@"
SH
# One that edits its own file while it runs the capture worker (the -c text names it).
cat > "$WORK/bin/edits_during_worker" <<'SH'
#!/bin/sh
case "$*" in
  *"profile-capture worker"*) /usr/bin/python3 "$@"; rc=$?; printf '# edited while the worker ran\n' >> "$0"; exit $rc ;;
esac
exec /usr/bin/python3 "$@"
SH
printf '#!/bin/sh\nexec /usr/bin/python3 "$@"\n' > "$WORK/bin/plain"
printf '#!/bin/sh\nexec /usr/bin/python3 "$@"\n' > "$WORK/bin/from_user_config"
chmod +x "$WORK/bin/"*

# run NAME CMD ARGS...: runs `tvis CMD --json ARGS`, keeps stdout, stderr and the exit code.
run() {
  local name="$1"; shift
  local rc=0
  "$TVIS" "$@" --json > "$WORK/out/$name.json" 2> "$WORK/out/$name.err" || rc=$?
  echo "$rc" > "$WORK/out/$name.rc"
}
runs_count() { ls -d "$WORK/runs"/*_graph-* 2>/dev/null | wc -l; }

# browser_freshness RUN NAME: RUN's Graph page in headless Chromium, served
# by `tvis open` over the runs folder; the page's state() in out/NAME.json.
browser_freshness() {
  local run="$1" name="$2" url rc=0
  "$TVIS" open --no-browser "$WORK/runs" > "$WORK/out/open_$name.out" 2> "$WORK/out/open_$name.err" &
  local pid=$!
  for _ in $(seq 1 300); do [ -s "$WORK/out/open_$name.out" ] && break; sleep 0.1; done
  url="$(head -1 "$WORK/out/open_$name.out")"
  [[ "$url" =~ ^http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{32}$ ]] || { kill "$pid"; echo "FAIL: tvis open printed '$url'" >&2; exit 1; }
  # the freshness answer as the server gives it, and the Graph page showing it
  curl -s "${url%%/\?token=*}/api/freshness?token=${url##*token=}&run=${run#"$WORK/runs/"}" > "$WORK/out/api_$name.json" || rc=$?
  node "$ROOT/tests/profiles/browser_freshness.mjs" "${url%%/\?token=*}" "${url##*token=}" "$WORK/out" "$name" \
    "${run#"$WORK/runs/"}" > "$WORK/out/$name.log" 2>&1 || rc=$?
  kill -TERM "$pid"; wait "$pid" || true
  [ "$rc" = 0 ] || { echo "FAIL: browser Graph page of $run: $(cat "$WORK/out/$name.log")" >&2; exit 1; }
}

# Pinning.
run pin_before check --python "$WORK/bin/edits_on_first_run" --profile two_blocks
run pin_after check --python "$WORK/bin/edits_during_worker" --profile two_blocks
# Freshness of graph runs.
run graph_first graph --python "$PY" --profile two_blocks --out "$WORK/runs"
run graph_again graph --python "$PY" --profile two_blocks --out "$WORK/runs"
echo "$(runs_count)" > "$WORK/out/count_after_again"
run graph_recapture graph --python "$PY" --profile two_blocks --out "$WORK/runs" --recapture
echo "$(runs_count)" > "$WORK/out/count_after_recapture"
RECAPTURED="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"])' "$WORK/out/graph_recapture.json")"
printf '\n# an edit after the capture\n' >> audit_models.py
"$TVIS" inspect --json "$RECAPTURED" > "$WORK/out/inspect_stale.json"
xvfb-run -a -s "-screen 0 1400x900x24" "$BIN/tvis-view" "$RECAPTURED" --size 1200x800 --frames 8 \
  --screenshot "$WORK/out/stale.png" --state-json "$WORK/out/view_stale.json" 2> "$WORK/out/view_stale.err"
run graph_after_edit graph --python "$PY" --profile two_blocks --out "$WORK/runs"
echo "$(runs_count)" > "$WORK/out/count_after_edit"
FRESH="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"])' "$WORK/out/graph_after_edit.json")"
xvfb-run -a -s "-screen 0 1400x900x24" "$BIN/tvis-view" "$FRESH" --size 1200x800 --frames 8 \
  --state-json "$WORK/out/view_fresh.json" 2> "$WORK/out/view_fresh.err"
# The browser's Graph page through `tvis open`: the server rechecks the files (/api/freshness).
browser_freshness "$RECAPTURED" browser_stale
browser_freshness "$FRESH" browser_fresh
# A refused recapture (the interpreter changes between plan and run) keeps the previous run.
rm -f "$WORK/bin/edits_on_first_run.ran"
run graph_refused graph --python "$WORK/bin/edits_on_first_run" --profile two_blocks --out "$WORK/runs"
echo "$(runs_count)" > "$WORK/out/count_after_refused"
# Refused before anything ran (a missing interpreter): the previous run is kept too.
run graph_refused_early graph --python "$WORK/bin/nope" --profile two_blocks --out "$WORK/runs"
echo "$(runs_count)" > "$WORK/out/count_after_refused_early"
# Ctrl-C during a capture: the worker is stopped, no run is written, the request's previous run is kept.
run graph_sleeps graph --python "$PY" --profile sleeps --out "$WORK/runs"  # its forward outlives its 5000 ms: a run
echo "$(runs_count)" > "$WORK/out/count_before_cancel"
"$TVIS" graph --python "$PY" --profile sleeps --timeout-ms 120000 --out "$WORK/runs" --json \
  > "$WORK/out/graph_cancel.json" 2> "$WORK/out/graph_cancel.err" &
cancel_pid=$!
for _ in $(seq 1 600); do  # the capture's folder exists from the moment its worker starts
  [ "$(runs_count)" -gt "$(cat "$WORK/out/count_before_cancel")" ] && break; sleep 0.05
done
sleep 1
kill -INT "$cancel_pid"
rc=0; wait "$cancel_pid" || rc=$?
echo "$rc" > "$WORK/out/graph_cancel.rc"
echo "$(runs_count)" > "$WORK/out/count_after_cancel"
# this test's workers only (their cwd is its workspace): suites beside it run captures of their own
for pid in $(pgrep -f "profile-capture worker"); do
  case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in "$WORK"/*) echo "$pid";; esac
done > "$WORK/out/workers_after_cancel"
# A forward that edits its own module: the evidence changed during the capture.
cat > self_editing.py <<'PYSRC'
import torch
from torch import nn


# tensorviz: input=1,4
class SelfEditing(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        with open(__file__, "a") as f:
            f.write("# appended by its own forward\n")
        return self.fc(x)
PYSRC
run self_editing check --python "$PY" self_editing:SelfEditing

# Resolution order.
run missing_python check --python "$WORK/bin/nope" --profile two_blocks
# A workspace's own interpreter settings count only when the user config trusts it (issue 29 item 1;
# tests/profiles/test_workspace_trust.sh checks an untrusted one runs nothing).
mkdir -p "$XDG_CONFIG_HOME/tvis"
printf '[tool]\ntrusted_workspaces = ["%s"]\n' "$PWD" > "$XDG_CONFIG_HOME/tvis/config.toml"
printf '\n[tool]\npython_path = "%s"\n' "$WORK/bin/plain" >> tensorviz.toml
run toml_python check --profile two_blocks
run flag_beats_toml check --python "$PY" --profile two_blocks
printf 'python = "%s"\n' "$WORK/bin/plain" > .tensorviz-choices.toml
run remembered_beats_toml check --profile two_blocks
run flag_beats_remembered check --python "$PY" --profile two_blocks
printf 'python = "%s"\n' "$WORK/bin/gone" > .tensorviz-choices.toml
run remembered_missing check --profile two_blocks
rm .tensorviz-choices.toml
"$PY" - <<'PYSRC'
import re
t = open("tensorviz.toml").read()
open("tensorviz.toml", "w").write(re.sub(r'python_path = ".*"', 'python_path = "bin/missing-python"', t))
PYSRC
run toml_missing check --profile two_blocks
"$PY" - <<'PYSRC'
t = open("tensorviz.toml").read()
open("tensorviz.toml", "w").write(t[:t.index("\n[tool]")] + "\n")
PYSRC
mkdir -p "$XDG_CONFIG_HOME/tvis"
printf '[tool]\npython_path = "%s"\n' "$WORK/bin/from_user_config" > "$XDG_CONFIG_HOME/tvis/config.toml"
run user_config check --profile two_blocks
printf '[tool]\npython_path = "%s"\n' "$WORK/bin/absent" > "$XDG_CONFIG_HOME/tvis/config.toml"
run user_config_missing check --profile two_blocks
# tvis run resolves its interpreter the same way: a missing configured one
# refuses, the configured one runs the script, --python beats it.
cat > tiny_train.py <<'PYSRC'
import os
import torch
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step %d wrapper %s" % (step, os.environ.get("TVIS_TEST_WRAPPER", "none")), flush=True)
PYSRC
printf '#!/bin/sh\nTVIS_TEST_WRAPPER=marking exec /usr/bin/python3 "$@"\n' > "$WORK/bin/marking"
chmod +x "$WORK/bin/marking"
tvis_run() {  # tvis_run NAME ARGS...: stdout, stderr and exit code of `tvis run ARGS`
  local name="$1" rc=0; shift
  "$TVIS" run --steps 1 --out "$WORK/train_runs" "$@" > "$WORK/out/$name.out" 2> "$WORK/out/$name.err" || rc=$?
  echo "$rc" > "$WORK/out/$name.rc"
}
tvis_run run_config_missing tiny_train.py
printf '[tool]\npython_path = "%s"\n' "$WORK/bin/marking" > "$XDG_CONFIG_HOME/tvis/config.toml"
tvis_run run_config tiny_train.py
tvis_run run_flag --python "$PY" tiny_train.py

"$PY" - "$WORK" <<'PYSRC'
import json, os, sys
work = sys.argv[1]
out = os.path.join(work, "out")
failures = []

def load(name):
    rc = int(open(os.path.join(out, name + ".rc")).read())
    text = open(os.path.join(out, name + ".json")).read()
    return rc, (json.loads(text) if text.strip() else None), open(os.path.join(out, name + ".err")).read()

def expect(name, cond, what):
    if not cond:
        failures.append("%s: %s" % (name, what))

def count(name):
    return int(open(os.path.join(out, name)).read())

# Pinning.
rc, j, err = load("pin_before")
expect("pin_before", rc == 2 and j and j["ok"] is False and j["stage"] == "interpreter", "exit %d %s" % (rc, j and j["stage"]))
msg = j["diagnostics"][0]["message"] if j and j["diagnostics"] else ""
expect("pin_before", msg.startswith("interpreter changed between plan and run: " + work + "/bin/edits_on_first_run")
       and "(before the worker started)" in msg, msg)
expect("pin_before", j and j["diagnostics"][0]["kind"] == "interpreter" and j["nodes"] == 0, "kind / nodes %s" % j)
rc, j, err = load("pin_after")
msg = j["diagnostics"][0]["message"] if j and j["diagnostics"] else ""
expect("pin_after", rc == 2 and j["stage"] == "interpreter" and "(while the worker ran)" in msg, "exit %d: %s" % (rc, msg))

# Freshness: unchanged -> reopened as is; --recapture; an edit -> stale, captured again.
rc, first, err = load("graph_first")
expect("graph_first", rc == 0 and first["ok"] and first["stale"] is False and first["evidence"] >= 5, "exit %d %s" % (rc, err))
expect("graph_first", first["interpreter"] == {"path": "/usr/bin/python3", "origin": "--python",
                                               "version": first["interpreter"]["version"]}, first["interpreter"])
rc, again, err = load("graph_again")
expect("graph_again", rc == 0 and again.get("reopened") is True and again["run"] == first["run"], "exit %d %s" % (rc, again))
expect("graph_again", count("count_after_again") == 1, "a reopened run wrote a new run folder")
rc, re_, err = load("graph_recapture")
expect("graph_recapture", rc == 0 and not re_.get("reopened") and re_["run"] != first["run"], "--recapture reopened")
expect("graph_recapture", count("count_after_recapture") == 2, "runs after --recapture: %d" % count("count_after_recapture"))
ins = json.load(open(os.path.join(out, "inspect_stale.json")))
# A recheck for an opened run reads only inside the run's workspace (issue 29 item 10): the
# interpreter, outside it, is named as not rechecked.
def opened_freshness(f, stale, reasons):
    u = f.get("unchecked", [])
    return ({k: f.get(k) for k in ("checked", "stale", "reasons")} == {"checked": True, "stale": stale, "reasons": reasons}
            and len(u) == 1 and u[0].startswith("interpreter /usr/bin/python3: outside the workspace "))
expect("inspect_stale", opened_freshness(ins["freshness"], True, ["audit_models.py changed"]), ins.get("freshness"))
v = json.load(open(os.path.join(out, "view_stale.json")))
expect("view_stale", v["page"] == "Graph" and v["view"]["stale"] is True and
       v["view"]["stale_reasons"] == ["audit_models.py changed"] and v["errors"] == [], v.get("view"))
rc, after, err = load("graph_after_edit")
expect("graph_after_edit", rc == 0 and not after.get("reopened") and after["run"] not in (first["run"], re_["run"]),
       "the edited workspace was not captured again: %s" % after.get("run"))
v = json.load(open(os.path.join(out, "view_fresh.json")))["view"]
expect("view_fresh", v["stale"] is False and opened_freshness(v["freshness"], False, []), v)
# The browser (through tvis open's /api/freshness) shows what tvis-view shows.
for name, stale, reasons in (("browser_stale", True, ["audit_models.py changed"]), ("browser_fresh", False, [])):
    api = json.load(open(os.path.join(out, "api_%s.json" % name)))
    expect(name, opened_freshness(api, stale, reasons), api)
    b = json.load(open(os.path.join(out, name + ".json")))
    v = b["state"]["view"]
    expect(name, b["errors"] == [] and v["stale"] is stale and v["stale_reasons"] == reasons and
           opened_freshness(v["freshness"], stale, reasons), (b["errors"], v.get("freshness")))

# A refused recapture keeps the previous run.
rc, j, err = load("graph_refused")
expect("graph_refused", rc == 2 and j["stage"] == "interpreter" and j["run"] is None, "exit %d %s" % (rc, j and j.get("run")))
expect("graph_refused", j.get("retained", {}).get("run") == after["run"] and
       j["retained"]["label"] == "Previous measurements retained", j.get("retained"))
expect("graph_refused", count("count_after_refused") == 3, "a refused capture left a run folder")
rc, j, err = load("graph_refused_early")
expect("graph_refused_early", rc == 2 and j["stage"] == "request" and j.get("retained", {}).get("run") == after["run"]
       and j["retained"]["label"] == "Previous measurements retained", "exit %d %s" % (rc, j and j.get("retained")))
expect("graph_refused_early", count("count_after_refused_early") == 3, "a refused request left a run folder")

# Cancelled (SIGINT): exit 130, no run, the previous run of the request retained, no worker left.
rc, sleeps, err = load("graph_sleeps")
expect("graph_sleeps", rc == 1 and sleeps["run"] and [d["kind"] for d in sleeps["diagnostics"]] == ["timeout"], "exit %d" % rc)
rc, j, err = load("graph_cancel")
expect("graph_cancel", rc == 130 and j and j["cancelled"] is True and j["run"] is None and j["ok"] is False,
       "exit %d %s" % (rc, j and {k: j.get(k) for k in ("cancelled", "run", "stage")}))
expect("graph_cancel", j and [d["kind"] for d in j["diagnostics"]] == ["cancelled"] and
       "(Ctrl-C); the worker was stopped" in j["diagnostics"][0]["message"], j and j["diagnostics"])
expect("graph_cancel", j and j.get("retained", {}).get("run") == sleeps["run"] and
       j["retained"]["label"] == "Previous measurements retained", j and j.get("retained"))
expect("graph_cancel", count("count_after_cancel") == count("count_before_cancel"), "a cancelled capture left a run folder")
expect("graph_cancel", open(os.path.join(out, "workers_after_cancel")).read().strip() == "", "a worker outlived the cancel")

# Certification is never given for evidence that changed during the capture.
rc, j, err = load("self_editing")
expect("self_editing", rc == 1 and j["ok"] is False and j["stage"] == "freshness" and j["stale"] is True, "exit %d %s" % (rc, j))
expect("self_editing", j and [d["kind"] for d in j["diagnostics"]] == ["stale"] and
       "self_editing.py changed" in j["diagnostics"][0]["message"], j and j["diagnostics"])
expect("self_editing", j and j["outputs"] and j["outputs"][0]["shape"] == [1, 2], "outputs %s" % (j and j["outputs"]))

# Resolution order and refusals naming their source.
rc, j, err = load("missing_python")
expect("missing_python", rc == 2 and "--python " + work + "/bin/nope: no such executable" in err and
       "does not switch" in err, err)
for name, path, origin in (("toml_python", work + "/bin/plain", "tensorviz.toml:"),
                           ("flag_beats_toml", "/usr/bin/python3", "--python"),
                           ("remembered_beats_toml", work + "/bin/plain", ".tensorviz-choices.toml python"),
                           ("flag_beats_remembered", "/usr/bin/python3", "--python"),
                           ("user_config", work + "/bin/from_user_config", "config/tvis/config.toml [tool] python_path")):
    rc, j, err = load(name)
    expect(name, rc == 0 and j and j["ok"], "exit %d %s" % (rc, err))
    i = j and j["interpreter"] or {}
    expect(name, i.get("path") == path and origin in i.get("origin", ""), "interpreter %s" % i)
for name, text in (("remembered_missing", ".tensorviz-choices.toml python) " + work + "/bin/gone: no such executable"),
                   ("toml_missing", "[tool] python_path " + work + "/ws/bin/missing-python: no such executable"),
                   ("user_config_missing", "[tool] python_path " + work + "/bin/absent: no such executable")):
    rc, j, err = load(name)
    expect(name, rc == 2 and text in err and j and j["ok"] is False, "exit %d, stderr %r" % (rc, err))

# tvis run through the same resolver.
def run_result(name):
    return (int(open(os.path.join(out, name + ".rc")).read()), open(os.path.join(out, name + ".out")).read(),
            open(os.path.join(out, name + ".err")).read())
rc, o, e = run_result("run_config_missing")
expect("run_config_missing", rc == 2 and "[tool] python_path " + work + "/bin/absent: no such executable" in e and
       "step 0" not in o, "exit %d, stderr %r" % (rc, e))
rc, o, e = run_result("run_config")
expect("run_config", rc == 0 and "step 0 wrapper marking" in o, "exit %d, stdout %r, stderr %r" % (rc, o, e[-500:]))
rc, o, e = run_result("run_flag")
expect("run_flag", rc == 0 and "step 0 wrapper none" in o, "exit %d, stdout %r, stderr %r" % (rc, o, e[-500:]))

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("test_freshness: all checks passed")
PYSRC
