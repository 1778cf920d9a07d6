#!/bin/bash
# cli_inspect_test.sh TVIS TVIS_SYNTH: `tvis inspect` end to end on good,
# recovered, corrupt, hostile and missing inputs: exit codes, and exactly one
# stderr line naming the problem for every refused file.
set -u
TVIS=$1
SYNTH=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE PATTERN ARGS...: exit code CODE; for CODE 2, one stderr line matching PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 2
  "$TVIS" inspect "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  [ "$got" = "$code" ] || fail "tvis inspect $*: exit $got, expected $code ($(head -c 300 "$dir/err"))"
  if [ "$code" = 2 ]; then
    [ "$(wc -l <"$dir/err")" = 1 ] || fail "tvis inspect $*: stderr is not one line: $(cat "$dir/err")"
    grep -qE -- "$pattern" "$dir/err" || fail "tvis inspect $*: stderr '$(cat "$dir/err")' lacks /$pattern/"
  elif [ -n "$pattern" ]; then
    grep -qE -- "$pattern" "$dir/out" || fail "tvis inspect $*: stdout lacks /$pattern/"
  fi
}

# patch FILE OFFSET HEXBYTE: overwrite one byte.
patch() { printf "$(printf '\\x%s' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

"$SYNTH" --out "$dir/good.tvis" --steps 2 --tiny >/dev/null || fail "tvis-synth failed"
size=$(stat -c %s "$dir/good.tvis")

expect 0 '"complete": true' --json "$dir/good.tvis"
expect 0 'complete' "$dir/good.tvis"

# Run folder and runs folder (newest run).
mkdir -p "$dir/runs/20260101-000000_train_a" "$dir/runs/20260102-000000_train_b"
cp "$dir/good.tvis" "$dir/runs/20260102-000000_train_b/run.tvis"
head -c 100 "$dir/good.tvis" >"$dir/runs/20260101-000000_train_a/run.tvis"
expect 0 '"steps": 2' --json "$dir/runs/20260102-000000_train_b"
expect 0 '"complete": true' --json "$dir/runs"

# Recovered: footer cut off, and a killed writer.
head -c $((size - 100)) "$dir/good.tvis" >"$dir/cut.tvis"
expect 0 '"complete": false' --json "$dir/cut.tvis"
expect 0 'recovered [0-9]+ chunks' --json "$dir/cut.tvis"
"$SYNTH" --out "$dir/killed.tvis" --steps 2 --tiny --no-finalize >/dev/null
expect 0 'footer missing: recovered' --json "$dir/killed.tvis"

# Refused, each with one line naming what, which chunk, which offset.
expect 2 'no such file or folder' "$dir/missing.tvis"
echo "print('hello')" >"$dir/script.py"
expect 2 'not a tvis run' "$dir/script.py"
: >"$dir/empty.tvis"
expect 2 'not a tvis run' "$dir/empty.tvis"
mkdir -p "$dir/empty_runs"
expect 2 'no run in' "$dir/empty_runs"

cp "$dir/good.tvis" "$dir/newer.tvis"
patch "$dir/newer.tvis" 8 03
expect 2 'run file format 3\.0 is newer than this tvis reads \(2\.x\); update tvis' "$dir/newer.tvis"

cp "$dir/good.tvis" "$dir/checksum.tvis"
patch "$dir/checksum.tvis" 100 00   # inside chunk 0's payload (header ends at 72)
patch "$dir/checksum.tvis" 101 00
expect 2 'chunk 0 \(run_meta\) at offset 16: payload checksum mismatch' "$dir/checksum.tvis"

cp "$dir/good.tvis" "$dir/header.tvis"
patch "$dir/header.tvis" 20 ff     # chunk 0's header
expect 2 'chunk 0 \(run_meta\).*offset 16.*checksum mismatch' "$dir/header.tvis"

# A chunk header with a valid checksum claiming 4 GB (no footer: found by the scan).
python3 - "$dir/huge.tvis" <<'PY' || fail "could not write huge.tvis"
import struct, sys
def xxh32(data, seed=0):
    P1, P2, P3, P4, P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
    M = 0xFFFFFFFF
    rotl = lambda x, r: ((x << r) | (x >> (32 - r))) & M
    n, i = len(data), 0
    if n >= 16:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while i + 16 <= n:
            for k in range(4):
                v[k] = (rotl((v[k] + struct.unpack_from('<I', data, i)[0] * P2) & M, 13) * P1) & M
                i += 4
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while i + 4 <= n:
        h = (rotl((h + struct.unpack_from('<I', data, i)[0] * P3) & M, 17) * P4) & M
        i += 4
    while i < n:
        h = (rotl((h + data[i] * P5) & M, 11) * P1) & M
        i += 1
    h ^= h >> 15; h = (h * P2) & M; h ^= h >> 13; h = (h * P3) & M; h ^= h >> 16
    return h
head = b'\x89TVIS\r\n\x1a' + struct.pack('<HHI', 1, 0, 0)
ch = struct.pack('<IHBBiiQQIIQ', 0x4B434754, 5, 0, 0, -1, -1, 2**64 - 1, 2**64 - 1, 0xFFFFFFFF, 0xFFFFFFFF, 0)
ch += struct.pack('<II', xxh32(ch), 0)
open(sys.argv[1], 'wb').write(head + ch + b'\0' * 4096)
PY
expect 2 'chunk 0 \(tensor_data\) at offset 16: size field too large' "$dir/huge.tvis"

if [ "$failures" != 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "cli_inspect_test: all passed"
