#!/usr/bin/env bash
# tools/device/gpu_check.sh: the recorder on a CUDA machine, from a copy of this tree.
#
#   1. unpacks the Debian packages the build needs (tools/device/devdeps.txt,
#      fetched beforehand with `apt-get download` into .devdeps/) into a private
#      prefix under the work folder (never into /): flatc and the FlatBuffers
#      headers, zstd, xxhash, CLI11, nlohmann-json, toml++, cpp-httplib (with
#      OpenSSL, zlib and brotli headers), graphviz, pkgconf
#   2. builds _tvis_native and tvis (TVIS_PYTHON_PACKAGE_ONLY=ON) against the
#      machine's python3 and its torch
#   3. runs tools/device/gpu_fidelity.py: a small CNN on CUDA recorded by
#      `tvis run --steps 3` and DDP on nccl under `tvis run --nproc-per-node`,
#      each against its plain run (bit-for-bit step lines, inspect --json,
#      RunMeta's backend, per-step times)
#
# Prints `PASS <check>` / `FAIL <check>: <why>` per check and exits non-zero on
# any failure. The whole log goes to $OUT/gpu_check.log ($OUT: the device
# tool's output folder; <work>/out without it), the build's to $OUT/build.log,
# every command of step 3 to $OUT/logs.tar.gz.
#
# Environment:
#   TVIS_DEVDEPS     folder of the .deb files (default <repo>/.devdeps)
#   TVIS_GPU_WORK    work folder: prefix, build, runs, logs (default /tmp/tvis-gpu-check)
#   TVIS_GPU_PYTHON  the Python with CUDA torch (default: python3 on PATH)
#   TVIS_JOBS        build jobs (default: nproc)
#
# `gpu_check.sh --configure-only`: steps 1 and CMake's configure alone, no GPU needed
# (a dry run on a developer's machine before spending device time).
# `gpu_check.sh --cost`: steps 1 and 2, then tools/device/record_cost.py instead of
# step 3: ResNet-50 (batch 64) and a GPT-2-shaped 124M LM, plain and recorded for 3
# steps (step ratio, extra GPU memory at peak, MB per step, losses bit for bit).
#
# Fetching the packages (once, on a Debian 12 machine, in the repo root):
#   echo /.devdeps/ >> .git/info/exclude; mkdir -p .devdeps
#   (cd .devdeps && apt-get download $(grep -v '^#' ../tools/device/devdeps.txt))
# then call the device tool with carry [".devdeps"] and `bash tools/device/gpu_check.sh`.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEPS="${TVIS_DEVDEPS:-$ROOT/.devdeps}"
WORK="${TVIS_GPU_WORK:-/tmp/tvis-gpu-check}"
OUTDIR="${OUT:-$WORK/out}"
PY="${TVIS_GPU_PYTHON:-$(command -v python3 || true)}"
# The device image's torch lives in a venv; its bin (cmake, ninja) goes on PATH too.
if ! "${PY:-false}" -c 'import torch' 2>/dev/null && [ -x /opt/torch/.venv/bin/python3 ]; then PY=/opt/torch/.venv/bin/python3; fi
[ -n "$PY" ] && PATH="$(dirname "$PY"):$PATH"
JOBS="${TVIS_JOBS:-$(nproc)}"
PREFIX="$WORK/prefix"
BUILD="$WORK/build"
LIBDIR="$PREFIX/usr/lib/x86_64-linux-gnu"
FAILS=0
CONFIGURE_ONLY=0
COST=0
[ "${1:-}" = --configure-only ] && CONFIGURE_ONLY=1
[ "${1:-}" = --cost ] && COST=1

say() { printf '%s\n' "$*"; }
pass() { say "PASS $1"; }
fail() { say "FAIL $1${2:+: $2}"; FAILS=$((FAILS + 1)); }
section() { say ""; say "== $* ($(date -u +%H:%M:%S))"; }

report_machine() {
  section "machine"
  nvidia-smi -L 2>&1 || say "(no nvidia-smi)"
  say "python: ${PY:-none}"
  [ -n "$PY" ] || return 1
  "$PY" -c 'import sys, torch
print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda,
      "available", torch.cuda.is_available(), "devices", torch.cuda.device_count(),
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-")
try:
    print("nccl", torch.cuda.nccl.version())
except Exception as e:
    print("nccl version unknown:", e)' 2>&1 || return 1
  [ "$CONFIGURE_ONLY" = 1 ] || "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' || return 1
  say "compiler: $(c++ --version 2>&1 | head -n1)"
  say "cmake: $(cmake --version 2>&1 | head -n1); ninja: $(ninja --version 2>&1 || echo none)"
  say "os: $(grep -m1 '^PRETTY_NAME=' /etc/os-release 2>/dev/null | cut -d= -f2- | tr -d '"')"
}

# Debian packages into $PREFIX; .pc files rewritten to point there.
unpack_deps() {
  section "dependencies from $DEPS"
  local debs=("$DEPS"/*.deb) f
  [ -e "${debs[0]}" ] || { say "no .deb files in $DEPS"; return 1; }
  rm -rf "$PREFIX" && mkdir -p "$PREFIX" || return 1
  for f in "${debs[@]}"; do dpkg -x "$f" "$PREFIX" || { say "dpkg -x $f failed"; return 1; }; done
  say "${#debs[@]} packages unpacked into $PREFIX"
  # prefix=/usr -> the private prefix; Debian's libzstd.pc names /usr/lib, not the multiarch folder.
  while IFS= read -r -d '' f; do
    sed -i -e "s#^\(prefix\|exec_prefix\)=/usr\$#\1=$PREFIX/usr#" -e "s# -I/usr/# -I$PREFIX/usr/#g" \
        -e "s#^libdir=\${exec_prefix}/lib\$#libdir=\${exec_prefix}/lib/x86_64-linux-gnu#" "$f"
  done < <(find "$PREFIX" -name '*.pc' -print0)
  # pkgconf needs its libpkgconf3 (in $LIBDIR); only pkgconf gets that library path.
  mkdir -p "$PREFIX/bin"
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$LIBDIR" "$PREFIX/usr/bin/pkgconf" > "$PREFIX/bin/pkg-config"
  chmod +x "$PREFIX/bin/pkg-config"
  export PKG_CONFIG_LIBDIR="$LIBDIR/pkgconfig:$PREFIX/usr/share/pkgconfig"
  "$PREFIX/bin/pkg-config" --cflags --libs libzstd tomlplusplus cpp-httplib libgvc >/dev/null || return 1
  "$PREFIX/usr/bin/flatc" --version || return 1
}

configure_and_build() {
  section "build (_tvis_native, tvis) in $BUILD"
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  rm -rf "$BUILD"
  # Headers of the prefix for every compile (the FlatBuffers, xxhash and CLI11 targets name no
  # include folder: Debian puts them in /usr/include); tvis gets an RPATH (not RUNPATH) to the
  # prefix so that the libraries its libraries need come from there too, without LD_LIBRARY_PATH
  # (which the recorded Python would inherit).
  cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DTVIS_PYTHON_PACKAGE_ONLY=ON -DTVIS_PYTHON="$PY" \
    -DTVIS_THIRD_PARTY_DIR="$WORK/third_party" \
    -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
    -DFLATC="$PREFIX/usr/bin/flatc" \
    -DPKG_CONFIG_EXECUTABLE="$PREFIX/bin/pkg-config" \
    -DCMAKE_CXX_FLAGS="-isystem $PREFIX/usr/include/x86_64-linux-gnu -isystem $PREFIX/usr/include" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags -Wl,-rpath,$LIBDIR -Wl,-rpath,$PREFIX/lib/x86_64-linux-gnu" \
    >"$OUTDIR/build.log" 2>&1
  local rc=$?
  grep -E 'recorder:|Torch|CLI11|nlohmann|Found' "$OUTDIR/build.log" | head -n 20
  if [ $rc -ne 0 ]; then tail -n 40 "$OUTDIR/build.log"; return 1; fi
  [ "$CONFIGURE_ONLY" = 1 ] && return 0
  local t0=$SECONDS
  if ! cmake --build "$BUILD" --target _tvis_native tvis -j "$JOBS" >>"$OUTDIR/build.log" 2>&1; then
    grep -E -A3 'error' "$OUTDIR/build.log" | head -n 40
    return 1
  fi
  say "built in $((SECONDS - t0)) s"
}

check_build() {
  local mod
  mod="$(compgen -G "$BUILD/python/_tvis_native*.so" | head -n1)"
  if [ -z "$mod" ] || [ ! -x "$BUILD/bin/tvis" ]; then say "missing bin/tvis or python/_tvis_native*.so"; return 1; fi
  if ldd "$BUILD/bin/tvis" | grep 'not found'; then return 1; fi
  ldd "$BUILD/bin/tvis" | grep -F "$PREFIX" | awk '{print "  tvis uses " $3}'
  PYTHONPATH="$BUILD/python" "$PY" -c 'import torch, _tvis_native; print("module", _tvis_native.__file__)' || return 1
  "$BUILD/bin/tvis" --help >/dev/null || return 1
}

main() {
  say "tvis gpu_check: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $ROOT ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo no git))"
  mkdir -p "$WORK"
  if report_machine; then pass "CUDA machine and python3 with CUDA torch"; else fail "CUDA machine" "no python3 with CUDA torch"; return 1; fi
  if unpack_deps; then pass "dependencies unpacked"; else fail "dependencies unpacked"; return 1; fi
  if configure_and_build; then
    if [ "$CONFIGURE_ONLY" = 1 ]; then pass "configure"; return 0; fi
    pass "build"
  else
    fail "build" "see build.log"; return 1
  fi
  if check_build; then pass "tvis and _tvis_native load"; else fail "tvis and _tvis_native load"; return 1; fi

  if [ "$COST" = 1 ]; then
    section "recording cost"
    "$PY" "$ROOT/tools/device/record_cost.py" --tvis "$BUILD/bin/tvis" --build "$BUILD" --python "$PY" --work "$WORK" \
      || FAILS=$((FAILS + 1))
    tar -czf "$OUTDIR/logs.tar.gz" -C "$WORK" logs 2>/dev/null || true
    return 0
  fi
  section "recording checks"
  if ! "$PY" "$ROOT/tools/device/gpu_fidelity.py" --tvis "$BUILD/bin/tvis" --build "$BUILD" --python "$PY" --work "$WORK"; then
    FAILS=$((FAILS + 1))
  fi
  tar -czf "$OUTDIR/logs.tar.gz" -C "$WORK" logs 2>/dev/null || true
  return 0
}

mkdir -p "$OUTDIR"
{
  main
  rc=$?
  if [ "$FAILS" -gt 0 ] || [ "$rc" -ne 0 ]; then say ""; say "gpu_check: FAILED"; exit 1; fi
  say ""; say "gpu_check: all checks passed"
} 2>&1 | tee "$OUTDIR/gpu_check.log"
exit "${PIPESTATUS[0]}"
