#!/usr/bin/env bash
# The Insights pages in tvis-view under Xvfb over real recordings of the
# scripts in tests/e2e/insights/ (tvis run --steps 3 --samples 8):
#   - a CNN: state().insights is [Grad-CAM, Embeddings]; the Grad-CAM map the
#     page reports equals the recorded map, which equals a Grad-CAM the checker
#     recomputes from the script's saved weights and batch; the Embeddings
#     PCA equals NumPy's SVD of the recorded vectors up to sign, at every depth;
#     the true-class hint (tvis run --gradcam-true) shown exactly for samples
#     the run has no true-class map of;
#   - a hand-written-attention char LM: [Attention, Embeddings]; the shown
#     weights (mean and each head) and the rollout over every layer range equal
#     NumPy computations from the softmax weights the script saved itself, the
#     tokens are the sample's characters, the map is causal; the token table's
#     PCA equals NumPy's SVD of the script's own table;
#   - torchvision's ViT (nn.MultiheadAttention, need_weights=False): the
#     Attention page from weights rebuilt from the kernel's q and k, said so
#     on screen (view.source "rebuilt"); shown weights and rollout equal NumPy
#     computations from a hand-written softmax the script saved; nothing named
#     as library attention; Grad-CAM on conv_proj;
#   - a small ViT with its own attention (T = 1 + 4x4 patches): [Attention,
#     Grad-CAM, Embeddings]; weights and rollout against NumPy as for the LM,
#     tokens [CLS] and (r,c), the picture painting [CLS]'s rollout row, or a
#     patch's row of the layer map when asked (query, paint);
#   - a GPT-2-shaped Hugging Face model (sdpa): the Attention page from
#     rebuilt weights, causal, its mask counted, weights and rollout equal
#     NumPy over the run's own records.
# Then the same pages in viewer.html (headless Chromium over nginx) must each
# show their view with no error. Screenshots of every page land in $OUT (look
# at them).
#
# Needs: xvfb-run, $BIN/tvis-view, a tvis that records ($TVIS_E2E_TVIS, else
# $BIN/tvis), build/venv/bin/python ($TVIS_TEST_PYTHON) with torch and numpy, $WEB/viewer.html, nginx
# and the e2e node modules (tools/bootstrap installs them).
source "$(dirname "$0")/lib.sh"
command -v xvfb-run >/dev/null || skip "xvfb-run not installed"
[ -x "$BIN/tvis-view" ] || fail "$BIN/tvis-view missing (run tools/bootstrap)"
TVIS="${TVIS_E2E_TVIS:-$BIN/tvis}"
[ -x "$TVIS" ] || fail "$TVIS missing (set TVIS_E2E_TVIS to a tvis that records)"
"$TEST_PY" -c 'import torch, numpy, torchvision' 2>/dev/null || fail "$TEST_PY lacks torch/numpy/torchvision"
DIR="$ROOT/tests/e2e/insights"
export PYTHONPATH="${TVIS_E2E_NATIVE_PY:-$ROOT/build/native/python}:$ROOT/recorder/python"

record() {  # record NAME: runs insights/NAME.py; prints run.tvis
  local name="$1" log="$WORK/rec_$1.log"
  "$TVIS" run --steps 3 --samples 8 --out "$WORK/runs/$name" "$DIR/$name.py" "$WORK/ref_$name.pt" >"$log" 2>&1 \
    || fail "tvis run $name failed: $(tail -5 "$log")"
  sed -n 's/^tvis run: recorded //p' "$log" | tail -1
}

view() {  # view NAME RUN ARGS...
  local name="$1" run="$2"; shift 2
  xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN/tvis-view" "$run" "$@" --size 1400x900 --frames 24 \
    --screenshot "$OUT/$name.png" --state-json "$OUT/$name.json" 2>"$OUT/$name.stderr" \
    || fail "tvis-view ($name) exited $?: $(cat "$OUT/$name.stderr")"
  "$TEST_PY" -c 'import json,sys; e=json.load(open(sys.argv[1]))["errors"]; sys.exit("errors: %s" % e if e else 0)' \
    "$OUT/$name.json" || fail "$name shows errors"
}

check() { "$TEST_PY" "$DIR/check_insights.py" "$@" || fail "check_insights $*"; }

# 1. CNN
CNN="$(record cnn)"
view cnn_replay "$CNN"
check insights "$OUT/cnn_replay.json" "$WORK/ref_cnn.pt" Grad-CAM Embeddings
for step in 0 2; do
  for layer in 0 2; do
    view "cnn_gradcam_${step}_$layer" "$CNN" --page Grad-CAM --step "$step" --module "$layer"
    check gradcam "$WORK/ref_cnn.pt" "$OUT/cnn_gradcam_${step}_$layer.json" "$CNN"
    check hint "$OUT/cnn_gradcam_${step}_$layer.json" "$CNN"
  done
done
view cnn_gradcam_true "$CNN" --page Grad-CAM --step 1 --link target=true
check hint "$OUT/cnn_gradcam_true.json" "$CNN"
for depth in 0 2 6; do
  view "cnn_embeddings_$depth" "$CNN" --page Embeddings --link "depth=$depth"
  check pca "$OUT/cnn_embeddings_$depth.json" "$CNN"
done

# 2. Character LM with its own attention
LM="$(record lm)"
view lm_replay "$LM"
check insights "$OUT/lm_replay.json" "$WORK/ref_lm.pt" Attention Embeddings
for head in mean 0 1; do
  view "lm_attention_$head" "$LM" --page Attention --step 1 --module blocks.1.attn --head "$head"
  check rollout "$WORK/ref_lm.pt" "$OUT/lm_attention_$head.json"
  python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["view"]["head"]; sys.exit(0 if h == (None if sys.argv[2] == "mean" else int(sys.argv[2])) else 1)' \
    "$OUT/lm_attention_$head.json" "$head" || fail "tvis-view --head $head: the view shows another head"
done
view lm_rollout_one "$LM" --page Attention --step 2 --link 'rollout=[1,1]'
check rollout "$WORK/ref_lm.pt" "$OUT/lm_rollout_one.json"
view lm_embeddings "$LM" --page Embeddings --link table=true
check table "$WORK/ref_lm.pt" "$OUT/lm_embeddings.json"

# 3. torchvision ViT: attention rebuilt from q, k (nn.MultiheadAttention's fused path)
VIT="$(record vit)"
view vit_insights "$VIT" --page Attention --step 1 --module encoder.layers.encoder_layer_1.self_attention
check insights "$OUT/vit_insights.json" "$WORK/ref_vit.pt" Attention Grad-CAM Embeddings
check rollout "$WORK/ref_vit.pt" "$OUT/vit_insights.json"
view vit_gradcam "$VIT" --page Grad-CAM
"$TEST_PY" - "$OUT/vit_insights.json" <<'PY' || fail "vit: $(head -c 400 "$OUT/vit_insights.json")"
import json, sys
s = json.load(open(sys.argv[1]))
v = s["view"]
assert s["insight"] == "Attention" and v["source"] == "rebuilt", v
assert v["origin"] == "rebuilt from q, k of nn.MultiheadAttention" and v["masked"] is None and v["full"] is None, v
PY
# 4. A small ViT with its own attention: patch tokens, [CLS], the picture
VITOWN="$(record vit_own)"
view vit_own_replay "$VITOWN"
check insights "$OUT/vit_own_replay.json" "$WORK/ref_vit_own.pt" Attention Grad-CAM Embeddings
view vit_own_attention "$VITOWN" --page Attention --step 1 --module blocks.1.attn
check rollout "$WORK/ref_vit_own.pt" "$OUT/vit_own_attention.json"
view vit_own_patch "$VITOWN" --page Attention --step 2 --link query=6 --link paint=layer --link 'rollout=[0,0]'
check rollout "$WORK/ref_vit_own.pt" "$OUT/vit_own_patch.json" 6 layer
# Replay's layer panel on an attention call: where [CLS], then a clicked
# patch, looks in that layer, painted On image (the Replay link keys).
view vit_own_layer_cls "$VITOWN" --page Replay --step 1 --phase forward --module blocks.1.attn --sample 2
check layer_attention "$WORK/ref_vit_own.pt" "$OUT/vit_own_layer_cls.json" 0
view vit_own_layer_patch "$VITOWN" --page Replay --step 2 --phase forward --module blocks.0.attn --sample 5 \
  --link layer_query=7
check layer_attention "$WORK/ref_vit_own.pt" "$OUT/vit_own_layer_patch.json" 7
# ... and on the character LM: a strip over its tokens, the last token's row, then token 4's.
view lm_layer_last "$LM" --page Replay --step 1 --phase forward --module blocks.1.attn
check layer_attention "$WORK/ref_lm.pt" "$OUT/lm_layer_last.json" -1
view lm_layer_token "$LM" --page Replay --step 2 --phase forward --module blocks.0.attn --link layer_query=4
check layer_attention "$WORK/ref_lm.pt" "$OUT/lm_layer_token.json" 4

# 5. A GPT-2-shaped Hugging Face model under sdpa: weights rebuilt from q, k, causal
GPT2="$(record gpt2)"
view gpt2_attention "$GPT2" --page Attention --step 1 --module transformer.h.1.attn
check recorded "$OUT/gpt2_attention.json" "$GPT2" rebuilt
view gpt2_head "$GPT2" --page Attention --step 2 --head 3 --link 'rollout=[0,0]'
check recorded "$OUT/gpt2_head.json" "$GPT2" rebuilt
"$TEST_PY" - "$OUT/gpt2_attention.json" <<'PY' || fail "gpt2: $(head -c 400 "$OUT/gpt2_attention.json")"
import json, sys
v = json.load(open(sys.argv[1]))["view"]
assert v["causal"] is True and v["masked"] == 12 * 11 // 2, v["masked"]
assert v["origin"] == "rebuilt from q, k of F.scaled_dot_product_attention", v["origin"]
PY
check recorded "$OUT/vit_insights.json" "$VIT" rebuilt

# The same insight pages in viewer.html (headless Chromium, the run read by
# Range from nginx, chunks answered asynchronously as in any browser): each
# shows its view with no error, as the native window does.
[ -f "$WEB/viewer.html" ] || fail "$WEB/viewer.html missing (run tools/bootstrap)"
WWW="$WORK/www"
mkdir -p "$WWW"
cp "$WEB"/viewer.html "$WEB"/viewer.js "$WEB"/viewer.wasm "$WWW/"
ln -s "$WORK/runs" "$WWW/runs"
PORT="$(free_port)"
start_nginx "$WWW" "$PORT"
# 60 changing frames a page here (a few seconds each with software GL);
# TVIS_INSIGHTS_FRAMES=600 for the figures of tools/bench/results/insights.md.
export TVIS_INSIGHTS_FRAMES="${TVIS_INSIGHTS_FRAMES:-60}"
shots() {  # shots RUN PAGE...: browser_shots.mjs on RUN (a run.tvis under $WORK/runs)
  local run="/runs/${1#"$WORK/runs/"}"; shift
  (cd "$ROOT/tests/e2e" && node insights/browser_shots.mjs "http://127.0.0.1:$PORT" "$OUT" "$run" "$@") \
    || fail "viewer.html: an insight page of $run shows no view or an error (screenshots in $OUT)"
}
shots "$CNN" Grad-CAM Embeddings
shots "$LM" Attention Embeddings
shots "$VIT" Attention Grad-CAM
shots "$GPT2" Attention
shots "$VITOWN" Attention
echo "insights e2e: ok (screenshots in $OUT)"
