#!/usr/bin/env bash
# tvis-view under Xvfb: a run, a runs folder and a corrupt file; checks the
# --state-json object (docs/viewer_test_surface.md) and that the --screenshot is not blank.
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "build/bin/tvis-view missing (run tools/bootstrap)"

view() {  # view NAME ARGS...: runs tvis-view in its own Xvfb display
  local name="$1"; shift
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$@" --size 1400x900 --frames 8 \
    --screenshot "$OUT/$name.png" --state-json "$OUT/$name.json" 2>"$OUT/$name.stderr" \
    || fail "tvis-view ($name) exited $?: $(cat "$OUT/$name.stderr")"
}

# Not blank: many distinct colours and real contrast.
check_not_blank() {
  local png="$1" colors sd
  colors=$(identify -format '%k' "$png")
  sd=$(identify -format '%[fx:standard_deviation]' "$png")
  [ "$colors" -gt 50 ] || fail "$png looks blank ($colors colours)"
  awk -v sd="$sd" 'BEGIN { exit !(sd > 0.02) }' || fail "$png looks blank (stddev $sd)"
}

json_get() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(json.dumps(eval("v"+sys.argv[2])))' "$@"; }

# 1. One run: steps and events as tvis inspect reports them; no errors.
mkdir -p "$WORK/runs/20260101-120000_train_a" "$WORK/runs/20260102-090000_train_b"
synth_run "$WORK/runs/20260101-120000_train_a/run.tvis" 3
synth_run "$WORK/runs/20260102-090000_train_b/run.tvis" 2
RUN="$WORK/runs/20260101-120000_train_a/run.tvis"
"$BIN/tvis" inspect --json "$RUN" > "$WORK/inspect.json"
view run "$RUN"
[ "$(json_get "$OUT/run.json" '["run"]["steps"]')" = "$(json_get "$WORK/inspect.json" '["steps"]')" ] || fail "steps differ: $(cat "$OUT/run.json")"
[ "$(json_get "$OUT/run.json" '["run"]["events"]')" = "$(json_get "$WORK/inspect.json" '["events"]')" ] || fail "events differ"
[ "$(json_get "$OUT/run.json" '["errors"]')" = "[]" ] || fail "errors shown: $(cat "$OUT/run.json")"
[ "$(json_get "$OUT/run.json" '["page"]')" = '"Replay"' ] || fail "page is not Replay (the default)"
[ "$(json_get "$OUT/run.json" '["view"]["step"]')" = 0 ] || fail "Replay does not start at step 0: $(cat "$OUT/run.json")"
json_get "$OUT/run.json" '["frame_ms"]["median"]' | awk '{ exit !($1 > 0) }' || fail "frame_ms not measured"
check_not_blank "$OUT/run.png"

# 1b. The golden file (a real recording) opens with the steps inspect reports.
GOLDEN="$ROOT/tests/data/golden_v1.tvis"
[ -f "$GOLDEN" ] || fail "$GOLDEN missing (it is committed)"
{
  "$BIN/tvis" inspect --json "$GOLDEN" > "$WORK/golden.json"
  view golden "$GOLDEN" --page Explore  # the call tree and inspector (Replay is the default page)
  [ "$(json_get "$OUT/golden.json" '["run"]["steps"]')" = "$(json_get "$WORK/golden.json" '["steps"]')" ] || fail "golden: steps differ: $(cat "$OUT/golden.json")"
  [ "$(json_get "$OUT/golden.json" '["run"]["events"]')" = "$(json_get "$WORK/golden.json" '["events"]')" ] || fail "golden: events differ"
  [ "$(json_get "$OUT/golden.json" '["errors"]')" = "[]" ] || fail "golden: errors shown: $(cat "$OUT/golden.json")"
  check_not_blank "$OUT/golden.png"
  screen_check selected-row "$OUT/golden.png" --absent
  screen_check heatmap "$OUT/golden.png" --absent
  # 1c. --select opens the inspector on a call; its tensor (heatmap through
  # the shell's GL textures) is shown once the chunk is decoded.
  view golden_select "$GOLDEN" --page Explore --select 8
  [ "$(json_get "$OUT/golden_select.json" '["selection"]["event"]')" = 8 ] || fail "golden --select 8: $(cat "$OUT/golden_select.json")"
  [ "$(json_get "$OUT/golden_select.json" '["selection"]["tensor"]')" != null ] || fail "golden --select 8: no tensor shown"
  check_not_blank "$OUT/golden_select.png"
  # What a person sees: the selected call's row (and its tensor's row) in the
  # selection colour, and the tensor's heatmap cells.
  screen_check selected-row "$OUT/golden_select.png"
  screen_check heatmap "$OUT/golden_select.png"
}

# 1d. A real `tvis run` of the bundled example, recorded now, opened by its
# run.tvis: what inspect reports, no errors, and a
# selected convolution shows its row highlighted and its output's heatmap.
REAL="$(real_run "$WORK/real_runs")"
[ -f "$REAL" ] || fail "real_run printed no run path"
"$BIN/tvis" inspect --json "$REAL" > "$WORK/real.json"
view real "$REAL" --page Explore
[ "$(json_get "$OUT/real.json" '["run"]["steps"]')" = 2 ] || fail "real run: steps: $(cat "$OUT/real.json")"
[ "$(json_get "$OUT/real.json" '["run"]["events"]')" = "$(json_get "$WORK/real.json" '["events"]')" ] || fail "real run: events differ"
[ "$(json_get "$OUT/real.json" '["errors"]')" = "[]" ] || fail "real run: errors shown: $(cat "$OUT/real.json")"
screen_check selected-row "$OUT/real.png" --absent
CONV="$(first_call_of "$REAL" Conv2d)" || fail "real run: no Conv2d call"
view real_select "$REAL" --page Explore --select "$CONV"
[ "$(json_get "$OUT/real_select.json" '["selection"]["event"]')" = "$CONV" ] || fail "real run --select $CONV: $(cat "$OUT/real_select.json")"
[ "$(json_get "$OUT/real_select.json" '["selection"]["tensor"]')" != null ] || fail "real run --select $CONV: no tensor shown"
screen_check selected-row "$OUT/real_select.png"

# 1e. The Timeline keeps tvis's own work apart (docs/viewer_test_surface.md,
# Explore's view): the real run on the user's clock by default, each phase's
# user + own time its wall time and some own time recorded (captures); on the
# wall clock the tvis lane draws it. The golden file, recorded before own time
# was measured, shows wall times and says own time was not recorded.
view real_timeline "$REAL" --page Explore --panel Timeline --step 1
"$TEST_PY" - "$OUT/real_timeline.json" <<'PY' || fail "real run timeline: $(cat "$OUT/real_timeline.json")"
import json, sys
v = json.load(open(sys.argv[1]))["view"]
assert v["timeline"]["clock"] == "user" and v["timeline"]["own_recorded"] and v["timeline"]["own_ms"] > 0, v["timeline"]
assert v["phase_times"] and all(abs(p["user_ms"] + p["own_ms"] - p["wall_ms"]) < 1e-6 for p in v["phase_times"])
assert sum(p["own_ms"] for p in v["phase_times"]) > 0, v["phase_times"]
PY
view real_timeline_wall "$REAL" --page Explore --panel Timeline --step 1 --link timeline_clock=wall
[ "$(json_get "$OUT/real_timeline_wall.json" '["view"]["timeline"]["clock"]')" = '"wall"' ] || fail "real run: wall clock: $(cat "$OUT/real_timeline_wall.json")"
json_get "$OUT/real_timeline_wall.json" '["view"]["timeline"]["own_bars"]' | awk '{ exit !($1 > 0) }' || fail "real run: no tvis lane bars"
check_not_blank "$OUT/real_timeline_wall.png"
view golden_timeline "$GOLDEN" --page Explore --panel Timeline
[ "$(json_get "$OUT/golden_timeline.json" '["view"]["timeline"]["own_recorded"]')" = false ] || fail "golden: own time claimed: $(cat "$OUT/golden_timeline.json")"
[ "$(json_get "$OUT/golden_timeline.json" '["view"]["timeline"]["clock"]')" = '"wall"' ] || fail "golden: not wall time"
[ "$(json_get "$OUT/golden_timeline.json" '["view"]["phase_times"][0]["own_ms"]')" = null ] || fail "golden: phase own time"
screen_check heatmap "$OUT/real_select.png"

# 2. Its run folder opens the same run.
view run_dir "$WORK/runs/20260101-120000_train_a"
[ "$(json_get "$OUT/run_dir.json" '["run"]["events"]')" = "$(json_get "$WORK/inspect.json" '["events"]')" ] || fail "run folder: events differ"

# 3. A runs folder: a run list, newest first.
view runs "$WORK/runs"
[ "$(json_get "$OUT/runs.json" '["runs"][0]["name"]')" = '"20260102-090000_train_b"' ] || fail "run list: $(cat "$OUT/runs.json")"
[ "$(json_get "$OUT/runs.json" '["runs"][0]["steps"]')" = 2 ] || fail "run list steps: $(cat "$OUT/runs.json")"
check_not_blank "$OUT/runs.png"

# 4. Not a run: the reader's message is shown (and reported), exit 0, no crash.
printf 'definitely not a run file\n' > "$WORK/bogus.tvis"
view bogus "$WORK/bogus.tvis"
[ "$(json_get "$OUT/bogus.json" '["run"]')" = null ] || fail "bogus file opened as a run"
[ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["errors"]))' "$OUT/bogus.json")" != 0 ] || fail "no error shown for a bogus file"
check_not_blank "$OUT/bogus.png"

# 5. A missing path: one line, exit 2.
set +e
"$BIN/tvis-view" "$WORK/nope.tvis" 2>"$WORK/nope.err"; rc=$?
set -e
[ "$rc" = 2 ] || fail "missing path: exit $rc, want 2"
[ "$(wc -l < "$WORK/nope.err")" = 1 ] || fail "missing path: want one line, got: $(cat "$WORK/nope.err")"
echo "window e2e: ok (screenshots in ${OUT#"$ROOT"/})"
