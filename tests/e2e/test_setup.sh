#!/usr/bin/env bash
# The browser setup form (docs/profiles.md "The setup form"): `tvis graph
# nets.mixer:Mixer --setup --no-browser` over a copy of tests/e2e/setup/
# workspace (a hand-written tensorviz.toml: comments, odd spacing, CRLF, no
# final newline), headless Chromium fills the form (setup/browser_setup.mjs:
# a refused shape, a new setup, "Change inputs" of the hand-written profile,
# a setup failure's "Set up...")
# and lands on the Graph page each time; then tensorviz.toml is checked: the
# hand-written bytes are exactly the original's, the generated blocks
# mixer_probe and mixer_setup hold what was typed, and `tvis profiles`
# accepts the file. Screenshots in $OUT.
source "$(dirname "$0")/lib.sh"
[ -x "$BIN/tvis" ] || fail "$BIN/tvis missing"
[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap, or set TVIS_E2E_WEB)"
[ -d "$ROOT/tests/e2e/node_modules" ] || fail "tests/e2e/node_modules missing (run tools/bootstrap)"
"$TEST_PY" -c 'import torch' 2>/dev/null || fail "$TEST_PY has no torch (tools/bootstrap installs it)"
cp -r "$ROOT/tests/e2e/setup/workspace" "$WORK/ws"
cp "$WORK/ws/tensorviz.toml" "$WORK/original.toml"
export XDG_CACHE_HOME="$WORK/cache"
export TVIS_WEB_DIR="$WEB"

# Refused before serving, each with its reason (exit 2, nothing on stdout).
refused() {  # refused WANT_TEXT ARGS...
  local want="$1" rc=0; shift
  "$BIN/tvis" graph "$@" >"$WORK/refused.out" 2>"$WORK/refused.err" || rc=$?
  [ "$rc" = 2 ] && [ ! -s "$WORK/refused.out" ] && grep -qF -- "$want" "$WORK/refused.err" \
    || fail "tvis graph $*: exit $rc, stderr '$(cat "$WORK/refused.err")' (want 2 and '$want')"
}
refused "name the model class to set up" --setup --no-browser --workspace "$WORK/ws"
refused "no model class nets.mixer:Nope" nets.mixer:Nope --setup --no-browser --workspace "$WORK/ws" --python "$TEST_PY"
refused "--no-browser belongs to --setup" nets.mixer:Mixer --no-browser --workspace "$WORK/ws"
refused "--setup takes neither --json nor --timeout-ms" nets.mixer:Mixer --setup --json --workspace "$WORK/ws"
cmp -s "$WORK/ws/tensorviz.toml" "$WORK/original.toml" || fail "a refused start changed tensorviz.toml"

"$BIN/tvis" graph nets.mixer:Mixer --setup --no-browser --workspace "$WORK/ws" --python "$TEST_PY" \
  >"$WORK/setup.out" 2>"$OUT/setup.stderr" &
PIDS+=($!)
for _ in $(seq 1 200); do [ -s "$WORK/setup.out" ] && break; sleep 0.1; done
URL="$(head -1 "$WORK/setup.out")"
case "$URL" in http://127.0.0.1:*/setup\?token=*class=nets.mixer:Mixer) ;; *) fail "no setup URL on stdout's first line: '$URL' ($(cat "$OUT/setup.stderr"))" ;; esac

# The token is required on every request, the form's endpoints included.
BASE="${URL%%/setup*}"
code="$(curl -s -o /dev/null -w '%{http_code}' "$BASE/api/setup/model?class=nets.mixer:Mixer")"
[ "$code" = 403 ] || fail "the model endpoint without the token answered $code"
code="$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{}' "$BASE/api/setup/save")"
[ "$code" = 403 ] || fail "save without the token answered $code"

# A page on another local port (the same site to the browser) posts to the
# save endpoint without the token, after the user opened the form: refused
# before any route runs, nothing saved (issue 46: a cookie used to carry it).
ATTACK_PORT=$(free_port)
mkdir -p "$WORK/attack"
cat > "$WORK/attack/index.html" <<HTML
<!doctype html><title>attack</title>
<form id="f" method="POST" action="$BASE/api/setup/save" enctype="text/plain">
<input name='{"class":"nets.mixer:Mixer","form":{"name":"evil_form","x":"' value='"}}'></form>
<script>
const sent = fetch('$BASE/api/setup/save', { method: 'POST', credentials: 'include', mode: 'no-cors',
  headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ class: 'nets.mixer:Mixer', form: { name: 'evil_fetch' } }) });
// Refused or not, answered or not (the server closes a refused connection): then the form.
Promise.race([sent.catch(() => {}), new Promise((res) => setTimeout(res, 3000))])
  .then(() => { document.title = 'sent'; document.getElementById('f').submit(); });
</script>
HTML
"$TEST_PY" -m http.server "$ATTACK_PORT" --bind 127.0.0.1 --directory "$WORK/attack" >"$WORK/attack.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$ATTACK_PORT/" && break; sleep 0.1; done
node "$ROOT/tests/e2e/setup/cross_site.mjs" "$URL" "http://127.0.0.1:$ATTACK_PORT/" || fail "browser: the cross-site page did not run"
! grep -q "evil_" "$OUT/setup.stderr" || fail "a page on another port reached the save endpoint: $(grep evil_ "$OUT/setup.stderr")"
cmp -s "$WORK/ws/tensorviz.toml" "$WORK/original.toml" || fail "a page on another port changed tensorviz.toml"
echo "ok   a page on another local port cannot save (no token: refused before the route)"

node "$ROOT/tests/e2e/setup/browser_setup.mjs" "$URL" "$OUT" || fail "browser: the setup form (see $OUT/setup_browser.json, $OUT/setup_*.png, $OUT/setup.stderr)"

"$TEST_PY" - "$WORK/original.toml" "$WORK/ws/tensorviz.toml" <<'PY' || fail "tensorviz.toml after the form (see above)"
import re, sys, tomllib
original = open(sys.argv[1], "rb").read()
now = open(sys.argv[2], "rb").read()
# The generated blocks: begin marker line through end marker line.
block = re.compile(rb"# tvis:generated profile (\S+) \xe2\x80\x94 the setup form rewrites this block\r\n.*?# tvis:end generated profile \1\r\n", re.S)
names = [m.group(1).decode() for m in block.finditer(now)]
assert names == ["mixer_probe", "mixer_setup"], names
outside = block.sub(b"", now)
# Everything else is the original, byte for byte (the file had no final
# newline: the first block was preceded by one CRLF ending it and one blank line).
assert outside == original + b"\r\n\r\n\r\n", (outside[-120:], original[-60:])
assert now.startswith(original), "the hand-written part was changed"
doc = tomllib.loads(now.decode())
probe = doc["profiles"]["mixer_probe"]
assert probe["model"] == "nets.mixer:Mixer" and probe["kind"] == "model", probe
assert probe["init"]["kwargs"] == {"width": 16, "depth": 3}, probe["init"]
assert probe["inputs"]["args"][0]["shape"] == [2, 4] and probe["inputs"]["args"][0]["generator"]["kind"] == "uniform", probe["inputs"]
assert probe["inputs"]["kwargs"] == {"scale": 0.5}, probe["inputs"]
assert probe["limits"]["timeout_ms"] == 30000, probe
changed = doc["profiles"]["mixer_setup"]
assert changed["inputs"]["args"][0]["shape"] == [5, 4] and changed["init"]["kwargs"] == {"width": 4, "depth": 1}, changed
assert changed["device"] == "cuda", changed  # the last save (step 4) updated the block in place
assert doc["profiles"]["mixer"]["inputs"]["args"][0]["shape"] == [3, 4], "the hand-written mixer changed"
print("tensorviz.toml: hand-written bytes kept, blocks", names)
PY
"$BIN/tvis" profiles --workspace "$WORK/ws" --python "$TEST_PY" >"$OUT/profiles.txt" 2>&1 || fail "tvis profiles refused the saved file: $(cat "$OUT/profiles.txt")"
grep -q "mixer_probe  nets.mixer:Mixer  valid" "$OUT/profiles.txt" || fail "tvis profiles does not list mixer_probe as valid: $(cat "$OUT/profiles.txt")"
ls "$WORK/ws/tvis_runs" | grep -q graph-Mixer || fail "no run in the workspace's tvis_runs"
grep -q "saved profile mixer_probe" "$OUT/setup.stderr" || fail "the session log lines are not on stderr"
grep -q "inputs.x.shape" "$OUT/setup.stderr" || fail "the refusal's detail is not in the log"
echo "setup form: ok"
