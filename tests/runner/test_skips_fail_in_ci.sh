#!/usr/bin/env bash
# tools/test's skip rule, run for real: a copy of tools/test in a scratch tree
# holding one suite that skips. Under CI=true a skip fails the run (exit 1,
# "FAILED (skipped under CI)") unless its reason is in ALLOWED_SKIPS; outside
# CI it is reported as skipped and the run passes. Covers a script's exit 77,
# pytest's "no tests collected", a pytest test skipped inside a passing suite,
# and the allowed no-GPU reason.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$SCRATCH/tools" "$SCRATCH/tests/s" "$SCRATCH/tests/p" "$SCRATCH/tests/q"
cp "$ROOT/tools/test" "$SCRATCH/tools/test"

printf '#!/bin/sh\necho "skip: no browser here" >&2\nexit 77\n' >"$SCRATCH/tests/s/test_skips.sh"
printf '#!/bin/sh\necho "skip: no CUDA GPU on this machine" >&2\nexit 77\n' >"$SCRATCH/tests/s/test_gpu.sh"
printf '#!/bin/sh\nexit 0\n' >"$SCRATCH/tests/s/test_passes.sh"
chmod +x "$SCRATCH"/tests/s/*.sh
printf 'VALUE = 1\n' >"$SCRATCH/tests/p/test_collects_nothing.py"
printf 'import pytest\n\ndef test_a():\n    assert 1 + 1 == 2\n\ndef test_b():\n    pytest.skip("the fixture file is missing")\n' \
  >"$SCRATCH/tests/q/test_inner_skip.py"

failures=0
# expect PATTERN CI EXIT TEXT: tools/test PATTERN under CI=$CI exits EXIT and prints TEXT.
expect() {
  local pattern="$1" ci="$2" want_rc="$3" want_text="$4" out rc
  set +e
  out="$(cd "$SCRATCH" && env CI="$ci" TVIS_TEST_NO_BOOTSTRAP=1 TVIS_TEST_PYTHON=/usr/bin/python3 bash tools/test "$pattern" 2>&1)"
  rc=$?
  set -e
  if [ "$rc" = "$want_rc" ] && grep -qF -- "$want_text" <<<"$out"; then
    echo "ok: '$pattern' with CI=$ci exits $rc and says '$want_text'"
  else
    echo "FAIL: '$pattern' with CI=$ci exited $rc (want $want_rc) and should say '$want_text':"
    sed 's/^/    | /' <<<"$out"
    failures=$((failures + 1))
  fi
}

expect s/test_skips   true  1 "FAILED (skipped under CI)"
expect s/test_skips   false 0 "skipped: skip: no browser here"
expect s/test_gpu     true  0 "allowed skip: s/test_gpu.sh: skip: no CUDA GPU"
expect s/test_passes  true  0 "1 passed, 0 failed"
expect pytest:p       true  1 "FAILED (skipped under CI)"
expect pytest:p       false 0 "skipped: skip: no tests collected"
expect pytest:q       true  1 "the fixture file is missing"
expect pytest:q       false 0 "skipped: "
[ "$failures" = 0 ] || { echo "$failures expectation(s) failed"; exit 1; }
