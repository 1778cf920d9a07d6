#!/usr/bin/env bash
# tools/test's suites side by side, run for real: a copy of tools/test in a
# scratch tree of suites that record when they start and end. Checked: with
# the default (2 at a time) two suites overlap, yet the lines and the summary
# come in queue order although the second ends first; the suites of an
# ONE_AT_A_TIME group (editors/) never overlap each other (the next suite
# of the queue starts beside one instead); each pytest suite
# gets its own --basetemp folder, removed at the end; a failing suite fails
# the run with its log's tail; TVIS_TEST_JOBS=1 runs one suite at a time;
# a TVIS_TEST_JOBS that is not a whole number from 1 is refused (exit 2).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$SCRATCH/tools" "$SCRATCH/tests/z" "$SCRATCH/tests/editors" "$SCRATCH/tests/p" "$SCRATCH/tests/q"
cp "$ROOT/tools/test" "$SCRATCH/tools/test"
EVENTS="$SCRATCH/events"

# suite NAME SECONDS [EXIT]: a script suite that logs "start NAME" and "end NAME" around a sleep.
suite() {
  printf '#!/bin/sh\necho "start %s" >>"%s"\nsleep %s\necho "end %s" >>"%s"\necho "the tail of %s"\nexit %s\n' \
    "$1" "$EVENTS" "$2" "$1" "$EVENTS" "$1" "${3:-0}" >"$SCRATCH/tests/$1.sh"
  chmod +x "$SCRATCH/tests/$1.sh"
}
suite z/test_1_slow 3
suite z/test_2_fast 0.2
suite z/test_3_fails 0.2 3
suite editors/test_x 1
suite editors/test_y 1
for d in p q; do  # each pytest suite writes its basetemp's path
  printf 'def test_where(tmp_path):\n    open("%s/basetemp_%s", "w").write(str(tmp_path.parent))\n' "$SCRATCH" "$d" \
    >"$SCRATCH/tests/$d/test_where.py"
done

failures=0
check() {  # check WHAT CONDITION...: reports one expectation
  local what="$1"; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
run() {  # run [ENV...]: tools/test in the scratch tree; sets OUT and RC
  : >"$EVENTS"
  set +e
  OUT="$(cd "$SCRATCH" && env TVIS_TEST_NO_BOOTSTRAP=1 TVIS_TEST_PYTHON=/usr/bin/python3 "$@" bash tools/test 2>&1)"
  RC=$?
  set -e
}
# overlap A B: true when suites A and B ran at the same time (each started before the other ended)
overlap() {
  awk -v a="$1" -v b="$2" '$0 == "start " a { sa = NR } $0 == "end " a { ea = NR }
                           $0 == "start " b { sb = NR } $0 == "end " b { eb = NR }
                           END { exit !(sa && ea && sb && eb && sb < ea && sa < eb) }' "$EVENTS"
}
# in_order TEXT...: the lines of OUT that start with "[test] " name the suites in this order
in_order() { [ "$(grep -o '^\[test\] [^ ]*' <<<"$OUT" | cut -d' ' -f2 | tr '\n' ' ')" = "$* " ]; }
order=(ctest pytest:p pytest:q editors/test_x.sh editors/test_y.sh z/test_1_slow.sh z/test_2_fast.sh z/test_3_fails.sh)

run
check "default: the run fails (one suite failed), exit 1" [ "$RC" = 1 ]
check "default: lines in queue order" in_order "${order[@]}"
check "default: the fast suite ran beside the slow one" overlap z/test_1_slow z/test_2_fast
check "default: the fast suite ended first" awk '$0 == "end z/test_2_fast" { f = NR } $0 == "end z/test_1_slow" { s = NR } END { exit !(f < s) }' "$EVENTS"
check "default: editors/ suites never side by side" eval '! overlap editors/test_x editors/test_y'
check "default: the next suite started beside editors/test_x instead" overlap editors/test_x z/test_1_slow
check "default: a failed suite's log tail is shown" grep -qF "| the tail of z/test_3_fails" <<<"$OUT"
check "default: summary in queue order" eval '[ "$(sed -n "/== summary/,\$p" <<<"$OUT" | awk "NR > 1 && /^  [^ (]/ { print \$1 }" | tr "\n" " ")" = "${order[*]} " ]'
check "default: each pytest suite its own basetemp" eval '[ "$(cat "$SCRATCH/basetemp_p")" = "$SCRATCH/build/test-tmp/pytest_p" ] && [ "$(cat "$SCRATCH/basetemp_q")" = "$SCRATCH/build/test-tmp/pytest_q" ]'
check "default: the basetemp folders are removed at the end" eval '[ ! -e "$SCRATCH/build/test-tmp" ]'

run TVIS_TEST_JOBS=1
check "JOBS=1: exit 1" [ "$RC" = 1 ]
check "JOBS=1: lines in queue order" in_order "${order[@]}"
check "JOBS=1: no two suites side by side" eval '! overlap z/test_1_slow z/test_2_fast && ! overlap z/test_2_fast z/test_3_fails'

run TVIS_TEST_JOBS=two
check "JOBS=two: refused with exit 2" [ "$RC" = 2 ]
check "JOBS=two: says why" grep -qF "TVIS_TEST_JOBS must be a whole number" <<<"$OUT"

if [ "$failures" != 0 ]; then
  echo "$failures expectation(s) failed; the last output:"
  sed 's/^/    | /' <<<"$OUT"
  exit 1
fi
