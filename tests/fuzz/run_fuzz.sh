#!/bin/bash
# run_fuzz.sh [SECONDS]: builds the reader's libFuzzer target with clang into
# build/fuzz, seeds a corpus with synthetic runs, the golden runs in
# tests/data and the chunk bodies of both, fuzzes for
# SECONDS (default 60) and exits non-zero on any crash, leak, timeout or OOM
# (the reproducer is left in build/fuzz/artifacts/; once fixed, add it to
# tests/fuzz/regressions/, which every run replays). Prints libFuzzer's
# final stats: executions per second and coverage.
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root/tests/fuzz" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 >/dev/null
mkdir -p "$build/seeds" "$build/corpus" "$build/artifacts"
"$build/fuzz_seeds" "$build/seeds" "$root"/tests/data/*.tvis
set +e
"$build/fuzz_reader" "$build/corpus" "$build/seeds" "$root/tests/fuzz/regressions" \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" 2>&1 | tee "$build/fuzz.log" |
  grep -E "INFO: seed corpus|#[0-9]+.*(INITED|DONE)|stat::|ERROR|SUMMARY|artifact" 
status=${PIPESTATUS[0]}
set -e
if [ "$status" != 0 ]; then
  echo "run_fuzz: fuzz_reader failed (exit $status); see $build/fuzz.log and $build/artifacts/"
  exit 1
fi
echo "run_fuzz: no crash in ${seconds} s"
