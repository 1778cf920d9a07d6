#!/bin/bash
# run.sh [BUILD_DIR]: builds and runs the format benchmark: the ~1 GB run at
# zstd level 1 (the writer's default), then smaller runs at levels 3 and -1
# that show why level 1 is the default. Exits with the 1 GB run's status
# (0 = goals met, 3 = not met).
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target bench_format -j2 >/dev/null || exit 1
bench="$build/bin/bench_format"
"$bench" --bytes 1e9 --level 1
status=$?
"$bench" --bytes 3e8 --level 3
"$bench" --bytes 3e8 --level -1
exit $status
