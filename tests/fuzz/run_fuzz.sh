#!/bin/bash
# run_fuzz.sh [SECONDS]: builds the libFuzzer targets with clang into
# build/fuzz, seeds the reader's corpus with synthetic runs, the golden runs in
# tests/data and the chunk bodies of both, fuzzes the reader for
# SECONDS (default 45) under a malloc and RSS limit (after replaying the
# crafted files of tests/data/hostile/chunk_*.tvis), then fuzz_http_head (tests/fuzz/corpus_http),
# fuzz_agent_frames (tests/fuzz/corpus_agent), fuzz_mcp_line
# (tests/fuzz/corpus_mcp) and fuzz_worker_lines (tests/fuzz/corpus_worker)
# for $FUZZ_TARGET_SECONDS each (default 10) from their crafted corpora, and exits non-zero on any crash, leak, timeout or OOM
# (the reproducer is left in build/fuzz/artifacts/; once fixed, add it to
# tests/fuzz/regressions/, which every run replays). Prints libFuzzer's
# final stats: executions per second and coverage.
set -euo pipefail
seconds=${1:-45}                            # the reader
target_seconds=${FUZZ_TARGET_SECONDS:-10}   # each other target (total under ~90 s)
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root/tests/fuzz" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 >/dev/null
mkdir -p "$build/seeds" "$build/corpus" "$build/artifacts"
"$build/fuzz_seeds" "$build/seeds" "$root"/tests/data/*.tvis
# The reader's memory limits (issue 46): no single allocation over 256 MB and
# no more than 1 GB resident. A chunk may declare 1 GiB decoded; a reader that
# believes a declaration instead of what the file's bytes can justify
# (chunk_limits.h) fails here. The crafted run files of tests/data/hostile
# (make_hostile_chunks: chunk sizes, zstd frames, the footer) are replayed
# whole first, one run each (a corpus folder would cut them at -max_len).
reader_limits=(-rss_limit_mb=1024 -malloc_limit_mb=256)
set +e
"$build/fuzz_reader" "${reader_limits[@]}" -timeout=20 "$root"/tests/data/hostile/chunk_*.tvis >"$build/fuzz_hostile.log" 2>&1
status=$?
set -e
if [ "$status" != 0 ]; then
  grep -E "ERROR|SUMMARY|Running" "$build/fuzz_hostile.log" | tail -5
  echo "run_fuzz: fuzz_reader failed on a crafted file of tests/data/hostile (exit $status); see $build/fuzz_hostile.log"
  exit 1
fi
echo "run_fuzz: $(ls "$root"/tests/data/hostile/chunk_*.tvis | wc -l) crafted run files replayed within ${reader_limits[*]}"
set +e
"$build/fuzz_reader" "$build/corpus" "$build/seeds" "$root/tests/fuzz/regressions" \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 "${reader_limits[@]}" \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" 2>&1 | tee "$build/fuzz.log" |
  grep -E "INFO: seed corpus|#[0-9]+.*(INITED|DONE)|stat::|ERROR|SUMMARY|artifact" 
status=${PIPESTATUS[0]}
set -e
if [ "$status" != 0 ]; then
  echo "run_fuzz: fuzz_reader failed (exit $status); see $build/fuzz.log and $build/artifacts/"
  exit 1
fi
# The parsers of outside input (issue 29): each target starts from its crafted
# corpus in the repo (the attack inputs, replayed every run as regressions)
# and keeps what it finds in build/fuzz/corpus_<name>.
for target in http_head:corpus_http agent_frames:corpus_agent mcp_line:corpus_mcp worker_lines:corpus_worker; do
  name=${target%%:*}
  crafted="$root/tests/fuzz/${target#*:}"
  mkdir -p "$build/corpus_$name"
  set +e
  "$build/fuzz_$name" "$build/corpus_$name" "$crafted" -max_total_time="$target_seconds" -max_len=8192 -timeout=5 \
    -rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" 2>&1 | tee "$build/fuzz_$name.log" |
    grep -E "#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY|artifact"
  status=${PIPESTATUS[0]}
  set -e
  if [ "$status" != 0 ]; then
    echo "run_fuzz: fuzz_$name failed (exit $status); see $build/fuzz_$name.log and $build/artifacts/"
    exit 1
  fi
done
echo "run_fuzz: no crash in ${seconds} s (reader) + ${target_seconds} s per other target"
