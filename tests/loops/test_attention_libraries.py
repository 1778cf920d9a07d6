"""Attention rebuilt from the fused kernels of real libraries (issue 32): a
Hugging Face GPT-2 and a Llama with grouped-query attention and right padding
under ``sdpa`` (scripts/attn_rebuilt_hf.py), timm's fused ViT attention and
torchvision's ViT (scripts/attn_rebuilt_vit.py), all built from configs.
Under ``tvis run`` they train bit for bit as without it, and every attention
layer of every step has, per followed sample, weights equal to the same
model computed eagerly (``attn_implementation="eager"`` with
``output_attentions``, timm's unfused path, nn.MultiheadAttention with
need_weights=True) within tests/recorder/attention_checks.TOL; GPT-2's
records carry the causal mask, Llama's the causal and padding mask, the
sample's token ids come from the model's keyword input, and nothing is named
as attention that could not be rebuilt.
"""
import importlib.util
import sys
from pathlib import Path

import pytest
import torch

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("attention_checks", _HERE.parent / "recorder" / "attention_checks.py")
checks = importlib.util.module_from_spec(_spec)
sys.path.append(str(_HERE.parent / "recorder"))  # its insight_records helper
_spec.loader.exec_module(checks)

SCRIPTS = _HERE / "scripts"
SDPA = "F.scaled_dot_product_attention"


@pytest.fixture(scope="module")
def hf_run(tvis, tmp_path_factory):
    return checks.record(tvis, SCRIPTS / "attn_rebuilt_hf.py", tmp_path_factory.mktemp("attn_hf"))


def test_hf_sdpa_equals_eager(hf_run):
    run, records, info, dump = hf_run
    mod = checks.load_script(SCRIPTS / "attn_rebuilt_hf.py")
    seen = checks.compare(run, records, dump, mod.Pair("sdpa"), mod.batch, mod.reference)
    assert seen == {("transformer.h.%d.attn" % i, "Rebuilt", SDPA) for i in range(2)} | \
        {("model.layers.%d.self_attn" % i, "Rebuilt", SDPA) for i in range(2)}
    assert len(records["attention"]) == checks.STEPS * 4 * 4
    assert records["library_attention"] == [] and info["captured"]["library_attention"] == []


def test_hf_tokens_and_masks(hf_run):
    run, records, _, _ = hf_run
    mod = checks.load_script(SCRIPTS / "attn_rebuilt_hf.py")
    causal = torch.ones(8, 8, dtype=torch.bool).triu(1)
    for a in records["attention"]:
        ids, am = mod.batch(a["step"])
        assert a["tokens"] == ids[a["sample"]].tolist(), "the sample's input ids (a keyword argument)"
        mask = checks.mask_of(run, a)
        if a["module"].endswith(".attn"):  # GPT-2: is_causal
            assert torch.equal(mask, causal)
        else:  # Llama: causal and the sample's right padding
            want = causal | (am[a["sample"]] == 0).expand(8, 8)
            assert torch.equal(mask, want), (a["sample"], mask)


@pytest.fixture(scope="module")
def vit_run(tvis, tmp_path_factory):
    return checks.record(tvis, SCRIPTS / "attn_rebuilt_vit.py", tmp_path_factory.mktemp("attn_vit"))


def test_vits_equal_eager(vit_run):
    run, records, info, dump = vit_run
    mod = checks.load_script(SCRIPTS / "attn_rebuilt_vit.py")
    seen = checks.compare(run, records, dump, mod.Pair(), mod.batch, lambda m, x, y: mod.reference(m, x))
    assert seen == {("blocks.%d.attn" % i, "Rebuilt", SDPA) for i in range(2)} | \
        {("encoder.layers.encoder_layer_%d.self_attention" % i, "Rebuilt", "nn.MultiheadAttention")
         for i in range(2)}
    assert records["library_attention"] == [] and info["captured"]["library_attention"] == []
    for a in records["attention"]:
        assert a["mask"] == -1 and a["tokens"] == [], "no mask, no token ids: image patches"
        assert list(run.values(a["weights"]).shape)[1:] == [17, 17]
