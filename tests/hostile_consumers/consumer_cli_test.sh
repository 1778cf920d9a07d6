#!/usr/bin/env bash
# consumer_cli_test.sh TVIS MAKE_CONSUMER_FILES DATA_DIR: each crafted
# consumer_*.tvis through `tvis diagnose`, `tvis diff` (against the golden
# run, both ways) and `tvis inspect` under a 1 GiB address-space cap and a
# 20 s limit: exit 0, 1 or 2, never a signal; a refused run says why in one
# line. Then the generator must reproduce the committed files exactly.
set -u
TVIS="$1" MAKE="$2" DATA="$3"
GOLDEN="$DATA/golden_v1.tvis"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

run_capped() {  # run_capped NAME ARGS...: tvis ARGS under the caps; sets rc, err
  local name="$1"; shift
  local start end
  start=$(date +%s)
  timeout 20 prlimit --as=1073741824 -- "$TVIS" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  rc=$?
  end=$(date +%s)
  err="$(cat "$WORK/$name.err")"
  echo "tvis $* -> exit $rc in $((end - start)) s${err:+: $err}"
}

for f in "$DATA"/hostile/consumer_*.tvis; do
  n="$(basename "$f" .tvis)"
  for cmd in diagnose "diff-a" "diff-b" inspect; do
    case "$cmd" in
      diagnose) run_capped "$n.$cmd" diagnose "$f" ;;
      diff-a) run_capped "$n.$cmd" diff "$f" "$GOLDEN" ;;
      diff-b) run_capped "$n.$cmd" diff "$GOLDEN" "$f" ;;
      inspect) run_capped "$n.$cmd" inspect "$f" ;;
    esac
    [ "$rc" -le 2 ] || fail "$n: $cmd exited $rc (a signal, the time limit or a crash)"
    if [ "$rc" = 2 ]; then
      [ "$(printf '%s\n' "$err" | grep -c .)" -le 2 ] || fail "$n: $cmd: the reason is not one line: $err"
      [ -n "$err" ] || fail "$n: $cmd exited 2 without a reason"
    fi
  done
  # The runs whose records share data are refused by diagnose, naming the chunk.
  case "$n" in
    consumer_shared_*)
      grep -q "refused as a crafted or corrupt file" "$WORK/$n.diagnose.err" ||
        fail "$n: diagnose did not refuse it: $(cat "$WORK/$n.diagnose.err")" ;;
  esac
done

mkdir -p "$WORK/gen"
"$MAKE" "$WORK/gen" || fail "make_consumer_files failed"
for f in "$WORK"/gen/consumer_*.tvis; do
  cmp -s "$f" "$DATA/hostile/$(basename "$f")" ||
    fail "$(basename "$f"): the committed file is not make_consumer_files' output (regenerate it)"
done
exit $failed
