"""Attention rebuilt from fused kernels (issue 32).

Three scripts train real models whose attention never materialises its
probabilities (scripts/attn_rebuilt_{torch,hf,vit}.py): torch's
nn.MultiheadAttention (batch first and not, need_weights=False, key padding,
a float causal mask, dropout in the kernel), nn.TransformerEncoder layers,
F.scaled_dot_product_attention (causal; grouped-query with a bool mask and a
scale), Hugging Face GPT-2 and Llama (GQA, padding) under ``sdpa``, timm's
fused ViT attention and torchvision's ViT. Under ``tvis run`` they train bit
for bit as without it, and every attention layer of every step has, per
followed sample, weights equal to an eager computation of the same model on
the same batch (each script's ``reference``: need_weights=True,
``attn_implementation="eager"``, timm's unfused path, a hand-written softmax)
within 2e-6 (float32 softmax over at most 17 keys: the kernels' summation
order differs), with their source, kind and mask recorded; torch's own
softmax (need_weights=True) is captured, not rebuilt. Nothing is named as
attention that could not be rebuilt.
"""
import importlib.util
import re

import pytest
import torch

from conftest import SCRIPTS, inspect_json, load_run, run_file_of, run_plain, run_tvis, step_lines
from insight_records import assert_tensor_roles, insights

STEPS = 2
TOL = 2e-6


def _script(name):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    import sys
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(SCRIPTS))
    return mod


def _record(tvis, name, tmp):
    script = SCRIPTS / (name + ".py")
    plain = run_plain(script, "--steps", STEPS)
    assert plain.returncode == 0, plain.stderr
    dump = tmp / "dump"
    rec = run_tvis(tvis, script, "--steps", STEPS, "--dump", dump, steps=STEPS, out=tmp / "run")
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout), "training differs under tvis run"
    path = run_file_of(rec.stdout)
    run = load_run(path)
    records = insights(run)
    assert_tensor_roles(run, records)
    return run, records, inspect_json(tvis, path), dump


def _weights_at(dump, step):
    """The parameters the forward of `step` saw: before training, or after step - 1."""
    return torch.load(dump / ("w_init.pt" if step == 0 else "w_step%d.pt" % (step - 1)))


def _compare(run, records, dump, mod, model, make_batch, ref_of):
    """Asserts every attention record equals the reference; returns {(module, source, kind)}."""
    refs = {}
    seen = set()
    for a in records["attention"]:
        step = a["step"]
        if step not in refs:
            model.load_state_dict(_weights_at(dump, step), strict=False)
            refs[step] = ref_of(model, *make_batch(step))
        module = a["module"]
        key = next((k for k in refs[step] if module == k or module.endswith("." + k)), None)
        assert key is not None, "no reference for %s (have %s)" % (module, sorted(refs[step]))
        expect = refs[step][key][a["sample"]].float()
        got = run.values(a["weights"])
        assert got is not None and list(got.shape) == list(expect.shape), (module, got, expect.shape)
        worst = (got - expect).abs().max().item()
        assert worst <= TOL, "%s step %d sample %d: rebuilt weights differ by %g" % (module, step, a["sample"], worst)
        seen.add((key, a["source"], a["kind"]))
    return seen


def _mask_of(run, a):
    return None if a["mask"] == -1 else run.values(a["mask"])


# ------------------------------------------------------------------ torch --
@pytest.fixture(scope="module")
def torch_run(tvis, tmp_path_factory):
    return _record(tvis, "attn_rebuilt_torch", tmp_path_factory.mktemp("attn_torch"))


def test_torch_attention_equals_eager(torch_run):
    run, records, info, dump = torch_run
    mod = _script("attn_rebuilt_torch")
    seen = _compare(run, records, dump, mod, mod.Net(), mod.batch, lambda m, tokens, y: mod.reference(m, tokens))
    sdpa, mha = "F.scaled_dot_product_attention", "nn.MultiheadAttention"
    assert seen == {("mha_bf", "Rebuilt", mha), ("mha_sf", "Rebuilt", mha), ("mha_w", "Captured", mha),
                    ("enc.layers.0.self_attn", "Rebuilt", mha), ("enc.layers.1.self_attn", "Rebuilt", mha),
                    ("causal", "Rebuilt", sdpa), ("gqa", "Rebuilt", sdpa)}
    want = {(s, m, i) for s in range(STEPS) for m, _, _ in seen for i in range(4)}
    got = {(a["step"], next(k for k, _, _ in seen if a["module"].endswith(k)), a["sample"])
           for a in records["attention"]}
    assert got == want and len(records["attention"]) == len(want)
    assert info["captured"]["library_attention"] == [] and records["library_attention"] == []
    assert {a["module"]: a["source"] for a in info["captured"]["attention"]}["mha_w"] == "captured"


def test_torch_masks_dropout_and_shapes(torch_run):
    run, records, _, _ = torch_run
    mod = _script("attn_rebuilt_torch")
    pad = mod.padding()
    for a in records["attention"]:
        mask, name = _mask_of(run, a), a["module"]
        assert a["full"] == [], "nothing is cut at T = 6"
        assert a["dropout"] == pytest.approx(0.1 if name == "mha_bf" else 0.0)
        if name in ("mha_w",):
            assert mask is None
        elif name in ("causal", "mha_sf"):  # is_causal, and a float -inf upper triangle
            assert torch.equal(mask, torch.ones(6, 6, dtype=torch.bool).triu(1)), name
        else:  # key padding (mha_bf, the encoder layers) and the bool keep-mask of gqa
            want = pad[a["sample"]].expand(6, 6)
            assert torch.equal(mask, want), (name, a["sample"], mask)
        w = run.values(a["weights"])
        if mask is not None and bool(mask.any()):
            assert float(w[:, mask].abs().max()) == 0.0, "a masked entry has weight"
        assert torch.allclose(w.sum(-1), torch.ones(w.shape[:-1]), atol=1e-5)
        heads = 4
        assert list(w.shape) == [heads, 6, 6] and a["shape"] == [4, heads, 6, 6]


# --------------------------------------------------------- Hugging Face --
@pytest.fixture(scope="module")
def hf_run(tvis, tmp_path_factory):
    return _record(tvis, "attn_rebuilt_hf", tmp_path_factory.mktemp("attn_hf"))


def test_hf_sdpa_equals_eager(hf_run):
    run, records, info, dump = hf_run
    mod = _script("attn_rebuilt_hf")
    seen = _compare(run, records, dump, mod, mod.Pair("sdpa"), mod.batch, mod.reference)
    sdpa = "F.scaled_dot_product_attention"
    assert seen == {("transformer.h.%d.attn" % i, "Rebuilt", sdpa) for i in range(2)} | \
        {("model.layers.%d.self_attn" % i, "Rebuilt", sdpa) for i in range(2)}
    assert len(records["attention"]) == STEPS * 4 * 4
    assert records["library_attention"] == []


def test_hf_tokens_and_masks(hf_run):
    run, records, _, _ = hf_run
    mod = _script("attn_rebuilt_hf")
    causal = torch.ones(8, 8, dtype=torch.bool).triu(1)
    for a in records["attention"]:
        ids, am = mod.batch(a["step"])
        assert a["tokens"] == ids[a["sample"]].tolist(), "the sample's input ids (a keyword argument)"
        mask = _mask_of(run, a)
        if a["module"].endswith(".attn"):  # GPT-2: is_causal
            assert torch.equal(mask, causal)
        else:  # Llama: causal and the sample's right padding
            want = causal | (am[a["sample"]] == 0).expand(8, 8)
            assert torch.equal(mask, want), (a["sample"], mask)


# ------------------------------------------------------------------- ViTs --
@pytest.fixture(scope="module")
def vit_run(tvis, tmp_path_factory):
    return _record(tvis, "attn_rebuilt_vit", tmp_path_factory.mktemp("attn_vit"))


def test_vits_equal_eager(vit_run):
    run, records, info, dump = vit_run
    mod = _script("attn_rebuilt_vit")
    seen = _compare(run, records, dump, mod, mod.Pair(), mod.batch, lambda m, x, y: mod.reference(m, x))
    assert seen == {("blocks.%d.attn" % i, "Rebuilt", "F.scaled_dot_product_attention") for i in range(2)} | \
        {("encoder.layers.encoder_layer_%d.self_attention" % i, "Rebuilt", "nn.MultiheadAttention") for i in range(2)}
    assert records["library_attention"] == [] and info["captured"]["library_attention"] == []
    for a in records["attention"]:
        assert a["mask"] == -1 and a["tokens"] == [], "no mask, no token ids: image patches"
        assert list(run.values(a["weights"]).shape)[1:] == [17, 17]


# ------------------------------------------------------------ long ones --
def test_long_sequence_keeps_the_leading_tokens(tmp_path):
    """T = 1,024 causal with 4 grouped heads: rebuild() keeps [H, 256, 256],
    each row normalised over every key (exact for a causal row), and never
    holds more than its scratch bound of scores at once."""
    from tvis.captures.attention.rebuild import KEEP_TOKENS, rebuild

    g = torch.Generator().manual_seed(5)
    q = torch.randn(2, 8, 1024, 16, generator=g)
    k = torch.randn(2, 4, 1024, 16, generator=g)
    w, masked, full = rebuild(q, k, None, True, None, 1)
    assert full == (1024, 1024) and list(w.shape) == [8, KEEP_TOKENS, KEEP_TOKENS]
    kk = k[1].repeat_interleave(2, dim=0)
    s = (q[1] @ kk.transpose(-1, -2) / 4.0).masked_fill(torch.ones(1024, 1024, dtype=torch.bool).triu(1),
                                                          float("-inf"))
    expect = torch.softmax(s, -1)[:, :KEEP_TOKENS, :KEEP_TOKENS]
    assert (w - expect).abs().max().item() <= TOL
    assert torch.equal(masked, torch.ones(KEEP_TOKENS, KEEP_TOKENS, dtype=torch.bool).triu(1))
    # not causal: the kept part of each row is the exact probability, so rows sum below 1
    w2, m2, _ = rebuild(q, k, None, False, 0.5, 0)
    assert m2 is None and float(w2.sum(-1).max()) < 1.0
    expect2 = torch.softmax(q[0] @ k[0].repeat_interleave(2, dim=0).transpose(-1, -2) * 0.5, -1)
    assert (w2 - expect2[:, :KEEP_TOKENS, :KEEP_TOKENS]).abs().max().item() <= TOL


def test_not_rebuildable_layouts_are_named():
    from tvis.captures.attention.rebuild import NotRebuildable, rebuild

    q = torch.randn(2, 4, 5, 8)
    with pytest.raises(NotRebuildable, match="query heads over"):
        rebuild(q, torch.randn(2, 3, 5, 8), None, False, None, 0)
    with pytest.raises(NotRebuildable, match="does not broadcast"):
        rebuild(q, torch.randn(2, 4, 5, 8), torch.ones(3, 5, 5, dtype=torch.bool), False, None, 0)
    with pytest.raises(NotRebuildable, match="widths differ"):
        rebuild(q, torch.randn(2, 4, 5, 6), None, False, None, 0)
