#!/usr/bin/env bash
# discovery.sh [TREE] [TVIS]: wall time of `tvis profiles --json` over a large
# real source tree (default: Debian's torch package, ~1,100 .py files, read
# as a workspace: every file parsed by the interpreter's ast, none imported),
# best of 3, with the file and model-class counts.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
TREE="${1:-/usr/lib/python3/dist-packages/torch}"
TVIS="${2:-$ROOT/build/native/bin/tvis}"
PY=/usr/bin/python3
files=$(find "$TREE" -name '*.py' -not -path '*/.*' -not -path '*/__pycache__/*' | wc -l)
best=""
for _ in 1 2 3; do
  t0=$(date +%s.%N)
  "$TVIS" profiles --workspace "$TREE" --python "$PY" --json > /tmp/tvis-bench-profiles.json || true
  t1=$(date +%s.%N)
  t=$(echo "$t1 - $t0" | bc)
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
done
classes=$("$PY" -c 'import json;print(len(json.load(open("/tmp/tvis-bench-profiles.json"))["classes"]))')
echo "tvis profiles over $TREE: $files .py files, $classes model classes, best of 3: ${best} s"
