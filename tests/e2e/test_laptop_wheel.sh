#!/usr/bin/env bash
# The laptop wheel (tools/wheel), installed as a user without torch or
# a compiler would: into a clean virtual environment (no system packages),
# from the wheel file alone. Checked: a manylinux tag; the CLI inside finds
# every shared library it links in the wheel (none from the system, Graphviz's
# dot layout included); `tvis inspect`; `tvis run` says recording needs torch;
# `tvis open host:path` through a real sshd on 127.0.0.1 serves the viewer
# installed with the wheel, lists the remote runs, reads their bytes, and
# opens one in headless Chromium; Ctrl-C stops it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/sshd.sh"
[ -x /usr/sbin/sshd ] || fail "openssh-server missing (tools/packages.txt)"
[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap)"

# --- the wheel, built by the repo's script
WHEEL="$(TVIS_WEB_DIR="$WEB" "$ROOT/tools/wheel" "$WORK/dist" | tail -1)"
[ -f "$WHEEL" ] || fail "tools/wheel printed no wheel: '$WHEEL'"
[[ "$(basename "$WHEEL")" =~ ^tvis-[0-9.]+-py3-none-manylinux_2_[0-9]+_x86_64\.whl$ ]] || fail "not a manylinux py3 wheel: $WHEEL"
echo "wheel: $(basename "$WHEEL") $(du -h "$WHEEL" | cut -f1)"

# --- a clean environment: Debian's python, no system site packages, no index
LAPTOP="$WORK/laptop"
/usr/bin/python3 -m venv "$LAPTOP"
"$LAPTOP/bin/python" -c 'import torch' 2>/dev/null && fail "the clean venv imports torch"
"$LAPTOP/bin/pip" install -q --disable-pip-version-check --no-index --no-deps "$WHEEL" || fail "pip install of the wheel"
TVIS="$LAPTOP/bin/tvis"
PKG="$("$LAPTOP/bin/python" -c 'import os, tvis; print(os.path.dirname(tvis.__file__))')"
[ -x "$PKG/bin/tvis" ] || fail "no CLI in the installed package ($PKG/bin/tvis)"
for f in viewer.html viewer.js viewer.wasm; do cmp -s "$PKG/web/$f" "$WEB/$f" || fail "installed $f differs from $WEB/$f"; done

# every library the CLI links resolves, and the non-glibc ones from the wheel
ldd "$PKG/bin/tvis" > "$WORK/ldd.txt"
! grep -q 'not found' "$WORK/ldd.txt" || fail "unresolved libraries: $(grep 'not found' "$WORK/ldd.txt")"
for lib in libgvc libgvplugin_dot_layout libzstd libtomlplusplus; do
  line="$(grep "$lib" "$WORK/ldd.txt")" || fail "the CLI does not link $lib: $(cat "$WORK/ldd.txt")"
  [[ "$line" == *"=> $(dirname "$PKG")/"* ]] || fail "$lib is not the wheel's copy: $line"
done

# --- the commands a laptop has
"$TVIS" inspect "$ROOT/tests/data/golden_v1.tvis" > "$WORK/inspect.txt" || fail "tvis inspect"
set +e; "$TVIS" run train.py > /dev/null 2> "$WORK/run.err"; rc=$?; set -e
[ "$rc" = 2 ] || fail "tvis run without torch exited $rc"
grep -q 'recording needs torch' "$WORK/run.err" || fail "tvis run without torch: $(cat "$WORK/run.err")"
XDG_CONFIG_HOME="$WORK/config" "$TVIS" target list > /dev/null || fail "tvis target list"
"$TVIS" agent --help > /dev/null || fail "tvis agent --help"

# --- tvis open host:path over ssh, the viewer from the wheel
RUNS="$WORK/runs"
NAME=20260101-120000_golden_aaaaaa
mkdir -p "$RUNS/$NAME"
cp "$ROOT/tests/data/golden_v1.tvis" "$RUNS/$NAME/run.tvis"
"$BIN/tvis" inspect --json "$RUNS/$NAME/run.tvis" > "$WORK/golden.json"
STEPS="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$WORK/golden.json")"
ssh_setup
start_sshd gpu "$(free_port)"
unset TVIS_WEB_DIR
# The remote's tvis is the source build's (what the cluster has); the laptop's is the wheel's.
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
  "$TVIS" open --no-browser --ssh-config "$SSH_CONFIG" --remote-tvis "$BIN/tvis" "gpu:$RUNS" > "$WORK/open.out" 2> "$WORK/open.err" &
OPEN_PID=$!
PIDS+=($OPEN_PID)
for i in $(seq 1 300); do
  [ -s "$WORK/open.out" ] && break
  kill -0 "$OPEN_PID" 2>/dev/null || fail "tvis open exited: $(cat "$WORK/open.err")"
  sleep 0.1
done
URL="$(head -1 "$WORK/open.out")"
[[ "$URL" =~ ^http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{32}$ ]] || fail "first line is not the URL: '$URL'"
BASE="${URL%%/\?token=*}"; TOKEN="${URL##*token=}"
curl -s "$BASE/viewer.html?token=$TOKEN" | cmp -s - "$PKG/web/viewer.html" || fail "viewer.html served is not the wheel's"
grep -q "with the viewer in $(realpath "$PKG/web")" "$WORK/open.err" || fail "tvis open names another viewer: $(cat "$WORK/open.err")"
curl -s -H "Range: bytes=100-1099" "$BASE/run/$NAME/run.tvis?token=$TOKEN" \
  | cmp -s - <(tail -c +101 "$RUNS/$NAME/run.tvis" | head -c 1000) || fail "remote range bytes differ"
if command -v chromium >/dev/null && "$(dirname "$0")/install_playwright.sh"; then
  export NODE_PATH="$(dirname "$0")/node_modules"
  mkdir -p "$OUT"
  TVIS_OPEN_URL="$URL" TVIS_OPEN_EXPECTED="[{\"name\":\"$NAME\",\"steps\":$STEPS}]" TVIS_OPEN_INDEX=0 \
    TVIS_OPEN_INSPECT="$WORK/golden.json" TVIS_OPEN_SHOT="$OUT/laptop_remote.png" \
    node "$(dirname "$0")/open_test.mjs" || fail "browser check of the wheel's tvis open"
else
  python3 - "$BASE" "$TOKEN" "$NAME" <<'PY' || fail "the run list over ssh"
import json, sys, urllib.request
base, token, name = sys.argv[1:]
runs = json.loads(urllib.request.urlopen("%s/api/runs?token=%s" % (base, token), timeout=30).read())
assert [r["name"] for r in runs] == [name], runs
PY
fi
kill -INT "$OPEN_PID"
for i in $(seq 1 100); do kill -0 "$OPEN_PID" 2>/dev/null || break; sleep 0.1; done
wait "$OPEN_PID" || fail "tvis open exited $? on Ctrl-C: $(tail -3 "$WORK/open.err")"
grep -q 'tvis open: stopped' "$WORK/open.err" || fail "tvis open did not stop cleanly: $(cat "$WORK/open.err")"
echo "PASS test_laptop_wheel"
