#!/usr/bin/env bash
# tvis-view under Xvfb on the crafted runs of tests/data/hostile/consumer_*.tvis
# (tests/hostile_consumers/make_consumer_files.cpp), each page in turn, under a
# 4 GiB address-space cap and a 60 s limit: it exits 0 after its frames, the
# runs whose records share data show the refusal as an error, and the run that
# claims a million steps draws Replay with no error.
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
command -v prlimit >/dev/null || skip "prlimit not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"

json_get() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(json.dumps(eval("v"+sys.argv[2])))' "$@"; }

for f in "$ROOT"/tests/data/hostile/consumer_*.tvis; do
  n="$(basename "$f" .tvis)"
  for page in Replay Explore Loss Weights Diagnosis; do
    rc=0
    timeout 60 xvfb-run -a -s "-screen 0 1600x1000x24" prlimit --as=4294967296 -- "$BIN/tvis-view" "$f" \
      --size 1400x900 --frames 8 --page "$page" --state-json "$OUT/$n.$page.json" 2>"$OUT/$n.$page.stderr" || rc=$?
    [ "$rc" = 0 ] || fail "tvis-view $n --page $page exited $rc: $(tail -c 400 "$OUT/$n.$page.stderr")"
    errors="$(json_get "$OUT/$n.$page.json" '["errors"]')"
    case "$n" in
      consumer_shared_*)
        grep -q "refused as a crafted or corrupt file" <<<"$errors" || fail "$n on $page: no refusal shown: $errors" ;;
      *)
        [ "$errors" = "[]" ] || fail "$n on $page: errors shown: $errors" ;;
    esac
  done
done
[ "$(json_get "$OUT/consumer_million_steps.Replay.json" '["run"]["steps"]')" = 1000000 ] ||
  fail "million steps: $(cat "$OUT/consumer_million_steps.Replay.json")"
echo "hostile view e2e: ok"
