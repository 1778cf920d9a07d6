"""Attention rebuilt from torch's fused kernels (issue 32); the Hugging Face,
timm and torchvision models are tests/loops/test_attention_libraries.py's.

scripts/attn_rebuilt_torch.py trains torch's own attention every way a model
reaches it: nn.MultiheadAttention (batch first and not, need_weights=False,
key padding, a float causal mask, dropout in the kernel, need_weights=True),
nn.TransformerEncoder layers, and on torch 2.x F.scaled_dot_product_attention
(causal; grouped-query with a bool mask and a scale). Under ``tvis run`` it
trains bit for bit as without it, and every attention layer of every step
has, per followed sample, weights equal to an eager computation of the same
model on the same batch (the script's ``reference``: need_weights=True, a
hand-written softmax) within attention_checks.TOL, with their source, kind,
mask and dropout recorded. On torch 1.13, whose F.multi_head_attention_forward
computes the softmax itself, the same weights are captured from it. Nothing
is named as attention that could not be rebuilt. rebuild() itself: a long
causal sequence keeps its leading 256 tokens exactly; layouts it cannot
rebuild are named.
"""
import pytest
import torch
import torch.nn.functional as F

from attention_checks import STEPS, TOL, compare, load_script, mask_of, record
from conftest import SCRIPTS

TORCH2 = hasattr(F, "scaled_dot_product_attention")  # else torch 1.13: torch's own softmax, captured


# ------------------------------------------------------------------ torch --
@pytest.fixture(scope="module")
def torch_run(tvis, tmp_path_factory):
    return record(tvis, SCRIPTS / "attn_rebuilt_torch.py", tmp_path_factory.mktemp("attn_torch"))


def test_torch_attention_equals_eager(torch_run):
    run, records, info, dump = torch_run
    mod = load_script(SCRIPTS / "attn_rebuilt_torch.py")
    seen = compare(run, records, dump, mod.Net(), mod.batch, lambda m, tokens, y: mod.reference(m, tokens))
    sdpa, mha = "F.scaled_dot_product_attention", "nn.MultiheadAttention"
    fused = "Rebuilt" if TORCH2 else "Captured"  # torch 1.13 computes the softmax itself, always
    want = {("mha_bf", fused, mha), ("mha_sf", fused, mha), ("mha_w", "Captured", mha),
            ("enc.layers.0.self_attn", fused, mha), ("enc.layers.1.self_attn", fused, mha)}
    if TORCH2:
        want |= {("causal", "Rebuilt", sdpa), ("gqa", "Rebuilt", sdpa)}
    assert seen == want
    rows = {(s, m, i) for s in range(STEPS) for m, _, _ in want for i in range(4)}
    got = {(a["step"], next(k for k, _, _ in want if a["module"].endswith(k)), a["sample"])
           for a in records["attention"]}
    assert got == rows and len(records["attention"]) == len(rows)
    assert info["captured"]["library_attention"] == [] and records["library_attention"] == []
    assert {a["module"]: a["source"] for a in info["captured"]["attention"]}["mha_w"] == "captured"


def test_torch_masks_dropout_and_shapes(torch_run):
    run, records, _, _ = torch_run
    mod = load_script(SCRIPTS / "attn_rebuilt_torch.py")
    pad = mod.padding()
    for a in records["attention"]:
        mask, name = mask_of(run, a), a["module"]
        assert a["full"] == [], "nothing is cut at T = 6"
        rebuilt = a["source"] == "Rebuilt"
        assert a["dropout"] == pytest.approx(0.1 if name == "mha_bf" and rebuilt else 0.0)
        if not rebuilt:  # torch's own softmax: its result, no mask recorded
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


# ------------------------------------------------------------ long ones --
def test_long_sequences_are_bounded(tvis, tmp_path):
    """T = 4,096 (batch 1): each record keeps [H, 256, 256] of the whole
    [4096, 4096] (``full``), rows normalised over every key (a causal row of
    the leading 256 sums to 1), the attention_cut notice names the modules,
    and the run's attention bytes stay within that bound."""
    from tvis.captures.attention.rebuild import KEEP_TOKENS

    run, records, info, _ = record(tvis, SCRIPTS / "attn_long.py", tmp_path)
    mods = {a["module"] for a in records["attention"]}
    assert mods == ({"mha", "mqa"} if TORCH2 else {"mha"})
    kept = 0
    for a in records["attention"]:
        w = run.values(a["weights"])
        heads = 4 if a["module"] == "mqa" else 2
        assert list(w.shape) == [heads, KEEP_TOKENS, KEEP_TOKENS] and a["full"] == [4096, 4096], a
        if a["module"] == "mqa":  # causal: the kept rows lose nothing
            assert torch.allclose(w.sum(-1), torch.ones(heads, KEEP_TOKENS), atol=1e-5)
        else:
            assert float(w.sum(-1).max()) < 1.0
        kept += w.numel() * 4
    assert kept <= STEPS * (2 + 4) * KEEP_TOKENS * KEEP_TOKENS * 4
    notices = {n["code"]: n["message"] for n in run.meta["notices"]}
    assert "mha [4096, 4096]" in notices["attention_cut"], notices



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
