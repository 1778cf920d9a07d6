#!/usr/bin/env bash
# test_fresh_machine.sh: tools/bootstrap's fresh-machine branches, which a
# machine that already has everything (CI's included) never takes.
#
# A scratch copy of the working tree with no build/, where every Debian package
# is missing, deb-src is not enabled, build/venv does not exist and there is no
# pip cache. Stand-ins on PATH answer for the package manager and record what
# would be installed:
#   dpkg-query  a package is installed once the apt-get stand-in installed it
#   apt-get     records its arguments; `install` marks the packages installed,
#               `source PKG` unpacks PKG's sources from this tree's
#               build/third_party (what apt would download)
#   python      TVIS_BASE_PYTHON: `-m venv DIR` makes a venv whose python
#               records `-m pip ...` (no download)
# Checked, with `tools/bootstrap --setup-only` (everything but compiling):
#   1. from nothing: exit 0; apt-get update and one install of exactly
#      tools/packages.txt, logged under build/ (which the clone did not have);
#      deb-src enabled in TVIS_APT_DIR; the three source packages fetched;
#      build/venv made and pip given tools/requirements-venv.txt; Emscripten's
#      writable configuration and build/env.sh written; nothing compiled
#   2. again: nothing installed, fetched or pip-installed a second time
#   3. --demo --setup-only on a fresh copy: the same machine steps
#   4. a failing apt-get install: exit 1 and an error naming the step and its log
#   5. a failing pip: exit 1 and an error naming the requirements file and its log
# tools/test's own bootstrap then runs every compiling branch for real.
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

for pkg in imgui libsdl2 libzstd; do
  compgen -G "$ROOT/build/third_party/$pkg-[0-9]*/" >/dev/null ||
    skip "build/third_party/$pkg-* missing (tools/bootstrap fetches it): nothing to stand in for apt-get source"
done
[ -d /usr/share/emscripten/cache ] || skip "Emscripten is not installed (tools/packages.txt)"

STUBS="$WORK/stubs"
mkdir -p "$STUBS"
cat > "$STUBS/dpkg-query" <<'EOF'
#!/usr/bin/env bash
# dpkg-query -W -f='${db:Status-Status}' PKG: "installed" once apt-get installed it.
pkg="${!#}"
if grep -qx "$pkg" "$TVIS_STUB_STATE/installed" 2>/dev/null; then printf installed; else printf not-installed; fi
EOF
cat > "$STUBS/apt-get" <<'EOF'
#!/usr/bin/env bash
echo "apt-get $*" >> "$TVIS_STUB_STATE/apt.log"
args=()
for a in "$@"; do case "$a" in -*|APT::*) ;; *) args+=("$a") ;; esac; done
case "${args[0]:-}" in
  update) ;;
  install)
    [ "${TVIS_STUB_APT_FAIL:-0}" = 1 ] && { echo "E: Unable to locate package (stand-in failure)"; exit 100; }
    printf '%s\n' "${args[@]:1}" >> "$TVIS_STUB_STATE/installed" ;;
  source)
    for pkg in "${args[@]:1}"; do
      src="$(compgen -G "$TVIS_STUB_SOURCES/$pkg-[0-9]*/" | head -n1)"
      [ -n "$src" ] || { echo "E: no source package $pkg"; exit 100; }
      cp -a "${src%/}" .
    done ;;
  *) echo "apt-get stand-in: unexpected $*" >&2; exit 100 ;;
esac
EOF
cat > "$STUBS/base-python" <<'EOF'
#!/usr/bin/env bash
# TVIS_BASE_PYTHON: -m venv DIR makes DIR/bin/python, which records pip's arguments.
[ "$1 $2" = "-m venv" ] || { echo "base-python stand-in: unexpected $*" >&2; exit 2; }
mkdir -p "$3/bin"
cat > "$3/bin/python" <<'INNER'
#!/usr/bin/env bash
echo "pip $*" >> "$TVIS_STUB_STATE/pip.log"
[ "${TVIS_STUB_PIP_FAIL:-0}" = 1 ] && { echo "ERROR: Could not find a version that satisfies the requirement torch==2.14.1"; exit 1; }
echo "Successfully installed torch-2.14.1 (stand-in)"
INNER
chmod +x "$3/bin/python"
EOF
cat > "$STUBS/sudo" <<'EOF'
#!/usr/bin/env bash
exec "$@"
EOF
chmod +x "$STUBS"/*

# fresh_copy NAME: the working tree (tracked and untracked files, not ignored
# ones such as build/) copied to $WORK/NAME; prints its path.
fresh_copy() {
  local dest="$WORK/$1"
  mkdir -p "$dest"
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -xf - -C "$dest"
  [ ! -e "$dest/build" ] || fail "the copy has a build/ folder"
  echo "$dest"
}

# bootstrap NAME COPY ARGS...: runs the copy's tools/bootstrap with the stand-ins
# and fresh state (STATE=$WORK/NAME-state); output in $WORK/NAME.log; returns its status.
bootstrap() {
  local name="$1" copy="$2"
  shift 2
  mkdir -p "$WORK/$name-state" "$WORK/$name-apt" "$WORK/$name-home"
  env -u TVIS_PYTHON PATH="$STUBS:$PATH" HOME="$WORK/$name-home" XDG_CACHE_HOME="$WORK/$name-home/.cache" \
    PIP_CACHE_DIR="$WORK/$name-home/no-pip-cache" \
    TVIS_STUB_STATE="$WORK/${STATE:-$name}-state" TVIS_STUB_SOURCES="$ROOT/build/third_party" \
    TVIS_APT_DIR="$WORK/${STATE:-$name}-apt" TVIS_BASE_PYTHON="$STUBS/base-python" \
    TVIS_OLDEST_PYTHON="" \
    bash "$copy/tools/bootstrap" "$@" >"$WORK/$name.log" 2>&1
}

expected_packages() { sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$ROOT/tools/packages.txt"; }

# --- 1. from nothing ------------------------------------------------------------
copy="$(fresh_copy fresh)"
bootstrap fresh "$copy" --setup-only || { cat "$WORK/fresh.log" >&2; fail "bootstrap --setup-only on a fresh copy failed"; }
state="$WORK/fresh-state"
grep -qx 'apt-get update -qq' "$state/apt.log" || fail "apt-get update was not run"
[ "$(grep -c '^apt-get install' "$state/apt.log")" = 1 ] || fail "not exactly one apt-get install: $(cat "$state/apt.log")"
diff <(expected_packages | sort) <(sort "$state/installed") >/dev/null ||
  fail "apt-get install was not given exactly tools/packages.txt: $(diff <(expected_packages | sort) <(sort "$state/installed") | head)"
[ -f "$copy/build/.tvis_apt.log" ] || fail "the package step's log is not in build/.tvis_apt.log"
grep -q '^Types: deb-src' "$WORK/fresh-apt/sources.list.d/debian-src.sources" || fail "deb-src was not enabled in TVIS_APT_DIR"
for pkg in imgui libsdl2 libzstd; do
  grep -q "^apt-get source .*$pkg\$" "$state/apt.log" || fail "apt-get source $pkg was not run"
  compgen -G "$copy/build/third_party/$pkg-[0-9]*/" >/dev/null || fail "$pkg's sources are not in build/third_party"
done
grep -q -- "-m pip install .*-r $copy/tools/requirements-venv.txt" "$state/pip.log" ||
  fail "pip was not given tools/requirements-venv.txt: $(cat "$state/pip.log" 2>/dev/null)"
[ "$(cat "$copy/build/venv/.tvis_requirements")" = "$(sha256sum "$ROOT/tools/requirements-venv.txt" | cut -d' ' -f1)" ] ||
  fail "build/venv does not remember the requirements it installed"
grep -q "^CACHE = '$copy/build/emscripten/cache'" "$copy/build/emscripten/config" || fail "Emscripten's writable configuration was not written"
grep -q "EM_CONFIG='$copy/build/emscripten/config'" "$copy/build/env.sh" || fail "build/env.sh was not written"
for tree in native wasm web bin; do
  [ ! -e "$copy/build/$tree" ] || fail "--setup-only compiled something: build/$tree exists"
done
grep -q 'done in' "$WORK/fresh.log" || fail "bootstrap did not print its step times"

# --- 2. again: nothing to do -------------------------------------------------------
cp "$state/apt.log" "$WORK/apt-before"
cp "$state/pip.log" "$WORK/pip-before"
STATE=fresh bootstrap again "$copy" --setup-only || { cat "$WORK/again.log" >&2; fail "a second bootstrap --setup-only failed"; }
cmp -s "$WORK/apt-before" "$state/apt.log" || fail "the second run called apt-get again: $(diff "$WORK/apt-before" "$state/apt.log")"
cmp -s "$WORK/pip-before" "$state/pip.log" || fail "the second run called pip again"

# --- 3. the demo's machine steps ------------------------------------------------------
demo="$(fresh_copy demo)"
bootstrap demo "$demo" --demo --setup-only || { cat "$WORK/demo.log" >&2; fail "bootstrap --demo --setup-only failed"; }
grep -q -- '--demo: only what tools/demo needs' "$WORK/demo.log" || fail "--demo was not taken"
[ -f "$demo/build/venv/.tvis_requirements" ] && [ -f "$demo/build/env.sh" ] || fail "--demo --setup-only did not prepare the machine"

# --- 4. apt-get install fails -------------------------------------------------------------
aptfail="$(fresh_copy aptfail)"
rc=0
TVIS_STUB_APT_FAIL=1 bootstrap aptfail "$aptfail" --setup-only || rc=$?
[ "$rc" = 1 ] || fail "a failing apt-get install gave exit $rc, not 1"
grep -q "error: apt-get install failed (log: $aptfail/build/.tvis_apt.log)" "$WORK/aptfail.log" ||
  fail "no clear error for a failing apt-get install: $(tail -n 5 "$WORK/aptfail.log")"
grep -q 'Unable to locate package' "$WORK/aptfail.log" || fail "apt-get's own message was not shown"

# --- 5. pip fails --------------------------------------------------------------------------
pipfail="$(fresh_copy pipfail)"
rc=0
TVIS_STUB_PIP_FAIL=1 TVIS_NO_WASM=1 bootstrap pipfail "$pipfail" --setup-only || rc=$?
[ "$rc" = 1 ] || fail "a failing pip gave exit $rc, not 1"
grep -q 'pip install -r tools/requirements-venv.txt failed' "$WORK/pipfail.log" ||
  fail "no clear error for a failing pip: $(tail -n 5 "$WORK/pipfail.log")"
grep -q 'Could not find a version' "$WORK/pipfail.log" || fail "pip's own error line was not shown"
[ ! -f "$pipfail/build/venv/.tvis_requirements" ] || fail "a failed pip install was remembered as done"

echo "fresh machine: packages, sources, build/venv and Emscripten set up from nothing; a second run does nothing; failures name their step"
