#!/bin/bash
# test_hostile_chunks.sh: `tvis inspect` and `tvis diagnose` on every crafted
# run file that attacks the container's read half (tests/data/hostile/chunk_*.tvis,
# written by make_hostile_chunks; the generator's fresh output is checked too,
# when it is built) under a 1 GiB address-space limit and a 20 s timeout.
# Each must exit 0, 1 or 2, a refusal with one stderr line naming the file
# and the check that refused it; nothing may crash, run out of memory or hang.
# Before issue 46 the first files made the reader allocate 1-2 GiB (an abort
# under this limit), the tensor_data one took 10 s and 1 GB, and the shared
# argv one ran out of time and memory.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TVIS=${TVIS:-$ROOT/build/native/bin/tvis}
GEN=$ROOT/build/native/bin/make_hostile_chunks
[ -x "$TVIS" ] || { echo "tvis is not built ($TVIS)" >&2; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The refusal each file must meet (an extended regular expression over stderr),
# or "ok" for a run that is valid and must be summarised. diagnose may also
# find nothing to judge (exit 2) in a valid run.
expected_inspect() {
  case "$1" in
    chunk_huge_raw_size.tvis|chunk_huge_raw_size_shuffled.tvis)
      echo 'chunk 0 \(events\) at offset 16: declares 1\.1 GB decoded from 32\.8 kB stored; a chunk of records decodes to at most' ;;
    chunk_frame_claims_huge.tvis) echo "chunk 0 \(tensor_data\) at offset 16: zstd frame's blocks decode to 40960\.\.40960 bytes, its header says 1073741824" ;;
    chunk_window_huge.tvis) echo 'chunk 0 \(events\) at offset 16: zstd frame asks for a 2\.2 TB window' ;;
    chunk_footer_huge.tvis) echo 'footer index at offset [0-9]+: declares 1\.1 GB decoded; an index of the chunks that fit before it holds at most 136 B' ;;
    chunk_tensor_data_garbage.tvis) echo 'chunk 0 \(tensor_data\) at offset 16: payload is not a valid tvis FlatBuffer: its root offset points outside the buffer \(found before decoding its 1\.1 GB\)' ;;
    chunk_tensor_data_zeros.tvis|chunk_same_name_events.tvis|chunk_shared_argv.tvis) echo ok ;;
    *) echo unknown ;;
  esac
}

# run CMD FILE: the command under the limits; leaves rc, seconds, stderr in $dir.
run() {
  local start end
  start=$(date +%s.%N)
  ( ulimit -v 1048576; exec timeout 20 "$TVIS" "$1" "$2" >"$dir/out" 2>"$dir/err" )
  echo $? >"$dir/rc"
  end=$(date +%s.%N)
  echo "$start $end" | awk '{printf "%.2f", $2 - $1}' >"$dir/seconds"
}

check() {
  local file=$1 name want rc
  name=$(basename "$file")
  want=$(expected_inspect "$name")
  [ "$want" = unknown ] && { fail "$name: no expectation in this test"; return; }
  for cmd in inspect diagnose; do
    run "$cmd" "$file"
    rc=$(cat "$dir/rc")
    echo "  $cmd $name: exit $rc in $(cat "$dir/seconds") s: $(head -c 240 "$dir/err")"
    case "$rc" in
      0|1|2) ;;
      *) fail "$cmd $name: exit $rc (crash, out of memory or timeout): $(head -c 300 "$dir/err")"; continue ;;
    esac
    if [ "$rc" = 2 ]; then
      [ "$(wc -l <"$dir/err")" = 1 ] || fail "$cmd $name: stderr is not one line: $(head -c 600 "$dir/err")"
      grep -q -- "^tvis $cmd: .*$name: " "$dir/err" || fail "$cmd $name: stderr does not name the file: $(cat "$dir/err")"
    fi
    if [ "$cmd" = inspect ]; then
      if [ "$want" = ok ]; then
        [ "$rc" = 0 ] || fail "inspect $name: a valid run, exit $rc: $(cat "$dir/err")"
      else
        [ "$rc" = 2 ] || fail "inspect $name: exit $rc, expected a refusal"
        grep -qE -- "$want" "$dir/err" || fail "inspect $name: stderr '$(cat "$dir/err")' lacks /$want/"
      fi
      awk -v s="$(cat "$dir/seconds")" 'BEGIN { exit !(s < 5) }' ||
        fail "inspect $name: took $(cat "$dir/seconds") s (limit 5 s)"
    elif [ "$want" != ok ] && [ "$rc" = 2 ]; then
      # diagnose reads no tensor values: a tensor_data chunk it skips may leave nothing to judge
      grep -qE -- "$want|nothing to judge" "$dir/err" || fail "diagnose $name: stderr '$(cat "$dir/err")' lacks /$want/"
    fi
  done
}

files=("$ROOT"/tests/data/hostile/chunk_*.tvis)
[ -e "${files[0]}" ] || { echo "FAIL: no tests/data/hostile/chunk_*.tvis"; exit 1; }
echo "kept files:"
for f in "${files[@]}"; do check "$f"; done
if [ -x "$GEN" ]; then
  mkdir -p "$dir/fresh"
  "$GEN" "$dir/fresh" || fail "make_hostile_chunks failed"
  [ "$(ls "$dir/fresh" | wc -l)" = "${#files[@]}" ] ||
    fail "make_hostile_chunks writes $(ls "$dir/fresh" | wc -l) files, tests/data/hostile keeps ${#files[@]}"
  echo "fresh files:"
  for f in "$dir"/fresh/chunk_*.tvis; do check "$f"; done
fi

# inspect's numbers on the valid ones: every chunk counted, no value kept.
( ulimit -v 1048576; timeout 20 "$TVIS" inspect "$ROOT/tests/data/hostile/chunk_tensor_data_zeros.tvis" ) >"$dir/out" 2>&1
grep -q 'chunks     8 (tensor_data 8)' "$dir/out" || fail "inspect chunk_tensor_data_zeros.tvis: $(cat "$dir/out")"
( ulimit -v 1048576; timeout 20 "$TVIS" inspect --json "$ROOT/tests/data/hostile/chunk_same_name_events.tvis" ) >"$dir/out" 2>&1
grep -q '"events": 200000' "$dir/out" || fail "inspect chunk_same_name_events.tvis: $(head -c 300 "$dir/out")"

if [ "$failures" != 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all hostile chunk files refused or summarised within the limits"
