"""Attention capture (issue 4) and keyword-only module inputs.

The bundled char-level LM (examples/char_transformer.py) computes its attention
with torch.softmax in the project's code: the run holds each layer's weights
for the followed samples, [H, T, T] per sample, rows summing to 1, equal to the
weights the test recomputes from the layer's recorded input and the recorded
qkv weights of that step, with the sample's input tokens and their characters;
no library-attention notice. A small torchvision ViT calls nn.MultiheadAttention
(torchvision 0.14 with keyword arguments only, query=x, key=x, value=x; 0.29
positionally): its weights are torch's own softmax (1.13) or rebuilt from the
fused kernel's q and k (2.x), never library attention, and the calls' inputs
are recorded, keyword ones too.
scripts/attn_variants.py: F.softmax over [B, T, T] and an nn.Softmax module
are captured (equal to recomputed weights), a [B*H, T, T] softmax is named in a
notice, class and non-last-dim softmaxes are not taken, a direct
F.multi_head_attention_forward call has its weights (rebuilt from the
F.scaled_dot_product_attention torch 2.x calls inside it, or torch 1.13's own
softmax there), a TorchScript'ed
module using softmax and MultiheadAttention still compiles under the patches,
and its head, called with a keyword argument only, has that input recorded.
All train bit-identically (losses and weight digests) with and without tvis.
"""
import importlib.util
import math

import pytest
import torch
import torch.nn.functional as F

from conftest import ROOT, SCRIPTS, inspect_json, load_run, run_file_of, run_plain, run_tvis, step_lines
from insight_records import assert_tensor_roles, insights

LM = ROOT / "examples" / "char_transformer.py"
VIT = SCRIPTS / "attn_vit.py"
STEPS, SAMPLES = 3, 4


def _record(tvis, script, out, *args):
    plain = run_plain(script, "--steps", STEPS, *args)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, "--steps", STEPS, *args, steps=STEPS, out=out)
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout), "training differs under tvis run"
    assert len(step_lines(rec.stdout)) == STEPS
    path = run_file_of(rec.stdout)
    run = load_run(path)
    records = insights(run)
    assert_tensor_roles(run, records)
    return run, records, inspect_json(tvis, path)


@pytest.fixture(scope="module")
def lm(tvis, tmp_path_factory):
    return _record(tvis, LM, tmp_path_factory.mktemp("lm"))


@pytest.fixture(scope="module")
def vit(tvis, tmp_path_factory):
    return _record(tvis, VIT, tmp_path_factory.mktemp("vit"))


def _vocab_chars():
    spec = importlib.util.spec_from_file_location("char_transformer_for_test", LM)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Vocab(mod.CORPUS).chars


def _notice_codes(run):
    return {n["code"] for n in run.meta.get("notices", [])}


def _param(run, step, name):
    rec = next(r for r in run.optimizer_steps if r["step"] == step)
    return run.values(next(p["weight"] for p in rec["params"] if p["name"] == name))


def _root_event(run, step):
    return next(e for e in run.module_events() if e["step"] == step and e["name"] == "CharLM")


def test_lm_weights_per_layer_and_sample(lm):
    run, ins, info = lm
    att = ins["attention"]
    got = {(a["step"], a["module"], a["sample"]) for a in att}
    want = {(s, "blocks.%d.attn" % l, i) for s in range(STEPS) for l in range(2) for i in range(SAMPLES)}
    assert got == want and len(att) == len(want)
    assert [a["module"] for a in info["captured"]["attention"]] == ["blocks.0.attn", "blocks.1.attn"]
    for a in att:
        assert a["shape"] == [8, 4, 48, 48]
        w = run.values(a["weights"])
        assert list(w.shape) == [4, 48, 48]
        assert torch.allclose(w.sum(-1), torch.ones(4, 48), atol=1e-5)
        assert torch.all(w.triu(1) == 0), "causal mask: no weight on future positions"
        ev = run.events[a["event"]]
        assert ev["name"] == a["module"] and ev["step"] == a["step"]


def test_lm_weights_equal_recomputed_from_recorded_inputs(lm):
    run, ins, _ = lm
    worst = 0.0
    for a in ins["attention"]:
        layer = a["module"].split(".")[1]
        x = run.values(run.events[a["event"]]["inputs"][0])  # ln1 output [B, T, D]
        w = _param(run, a["step"], "blocks.%s.attn.qkv.weight" % layer)
        b = _param(run, a["step"], "blocks.%s.attn.qkv.bias" % layer)
        bsz, t, d = x.shape
        q, k, _ = F.linear(x, w, b).split(d, dim=2)
        q, k = (z.view(bsz, t, 4, d // 4).transpose(1, 2) for z in (q, k))
        scores = (q @ k.transpose(-2, -1) / math.sqrt(d // 4)).masked_fill(
            ~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
        expect = torch.softmax(scores, dim=-1)[a["sample"]]
        got = run.values(a["weights"])
        worst = max(worst, (got - expect).abs().max().item())
    assert worst <= 1e-6, "captured weights differ from recomputed ones by %g" % worst


def test_lm_tokens_are_the_sample_input_ids(lm):
    run, ins, _ = lm
    chars = _vocab_chars()
    for a in ins["attention"]:
        ids = run.values(_root_event(run, a["step"])["inputs"][0])  # the batch [B, T] of token ids
        assert a["tokens"] == ids[a["sample"]].tolist()
        assert a["token_labels"] == [chars[i] for i in a["tokens"]]


def test_lm_has_no_library_attention(lm):
    run, ins, info = lm
    assert info["captured"]["library_attention"] == [] and ins["library_attention"] == []
    assert "library_attention" not in _notice_codes(run)
    assert "kwargs_only_calls" not in _notice_codes(run)


def _source():
    """How nn.MultiheadAttention's weights come: rebuilt from F.scaled_dot_product_attention
    (torch 2.x), else torch 1.13's own softmax inside F.multi_head_attention_forward."""
    return "rebuilt" if hasattr(F, "scaled_dot_product_attention") else "captured"


def test_vit_attention_rebuilt_or_captured(vit):
    run, ins, info = vit
    names = ["encoder.layers.encoder_layer_%d.self_attention" % i for i in range(2)]
    assert info["captured"]["library_attention"] == [] and ins["library_attention"] == []
    assert "library_attention" not in _notice_codes(run)
    assert info["captured"]["attention"] == [{"module": m, "shape": [8, 2, 17, 17], "source": _source(),
                                              "kind": "nn.MultiheadAttention"} for m in names]
    assert {(a["step"], a["module"], a["sample"]) for a in ins["attention"]} == \
        {(s, m, i) for s in range(STEPS) for m in names for i in range(SAMPLES)}
    for a in ins["attention"]:
        w = run.values(a["weights"])
        assert list(w.shape) == [2, 17, 17] and a["mask"] == -1
        assert torch.allclose(w.sum(-1), torch.ones(2, 17), atol=1e-5)


def _encoder_block_attention_keywords():
    """The tensor keywords torchvision's ViT encoder block passes its
    self_attention, seen by a stand-in module: "query key value" where it
    calls it with keyword arguments only (torchvision 0.14), "" where it
    passes them positionally (0.29)."""
    from torchvision.models.vision_transformer import EncoderBlock

    seen = []

    class Probe(torch.nn.Module):
        def forward(self, *args, **kwargs):
            seen.append(" ".join(k for k, v in kwargs.items() if isinstance(v, torch.Tensor)))
            return (args[0] if args else kwargs["query"]), None

    block = EncoderBlock(2, 32, 64, 0.0, 0.0)
    block.self_attention = Probe()
    block(torch.zeros(1, 3, 32))
    return seen[0]


def _kept_rows(run, step):
    """How many leading rows a batch-sized activation of `step` keeps: up to the last followed sample's."""
    return max(x["batch_position"] for c in run.samples if c["step"] == step for x in c["samples"]) + 1


def _detail(event):
    return {kv["key"]: kv.get("value", "") for kv in event.get("detail", [])}


def test_vit_keyword_only_calls_have_inputs(vit):
    run, _, _ = vit
    assert "kwargs_only_calls" not in _notice_codes(run)
    keywords = _encoder_block_attention_keywords()
    calls = [e for e in run.module_events() if e["name"].endswith(".self_attention")]
    assert len(calls) == 2 * STEPS
    for e in calls:
        ln1 = next(p for p in run.module_events() if p["step"] == e["step"]
                   and p["name"] == e["name"].replace("self_attention", "ln_1"))
        # query, key, value: the same tensor (ln_1's output) three times, by keyword or position
        assert e["inputs"] == ln1["outputs"] * 3, (e["inputs"], ln1["outputs"])
        assert _detail(e).get("keyword_inputs") == (keywords or None), (_detail(e), keywords)
        x = run.values(e["inputs"][0])  # the rows up to the last followed sample's (of a batch of 8)
        assert x is not None and list(x.shape) == [_kept_rows(run, e["step"]), 17, 32]


@pytest.fixture(scope="module")
def variants(tvis, tmp_path_factory):
    return _record(tvis, SCRIPTS / "attn_variants.py", tmp_path_factory.mktemp("variants"))


def test_variants_which_softmaxes_are_attention(variants):
    run, ins, info = variants
    assert info["captured"]["attention"] == [
        {"module": "causal3d", "shape": [6, 5, 5], "source": "captured", "kind": ""},
        {"module": "heads", "shape": [6, 2, 5, 5], "source": "captured", "kind": ""},
        {"module": "fmha", "shape": [6, 2, 5, 5], "source": _source(), "kind": "F.multi_head_attention_forward"}]
    want = {(s, m, i) for s in range(STEPS) for m in ("causal3d", "heads", "fmha") for i in range(SAMPLES)}
    assert {(a["step"], a["module"], a["sample"]) for a in ins["attention"]} == want
    assert len(ins["attention"]) == len(want), "the evaluation forwards under no_grad were captured too"
    for a in ins["attention"]:  # inside the training forward: the root call that got dL/d(output)
        root = run.events[run.events[a["event"]]["parent"]]
        while root["kind"] != "ModuleCall":  # Net.forward's function-call event sits in between
            root = run.events[root["parent"]]
        assert root["name"] == "Net" and root["grad_outputs"], a
    notices = {n["code"]: n["message"] for n in run.meta["notices"]}
    assert "flat [12, 5, 5]" in notices["attention_not_batched"]
    assert info["captured"]["library_attention"] == [] and "library_attention" not in notices


def test_variants_keyword_only_call_has_inputs(variants):
    run, _, _ = variants
    assert "kwargs_only_calls" not in _notice_codes(run)
    heads = [e for e in run.module_events() if e["name"] == "head"]
    # each step's training forward, and the evaluation after each step but the last (unrecorded)
    assert len(heads) == 2 * STEPS - 1
    for e in heads:  # self.head(input=x): no positional argument
        assert _detail(e).get("keyword_inputs") == "input"
        assert len(e["inputs"]) == 1
        if e["phase"] == "Forward":  # an evaluation's tensors keep statistics only
            x = run.values(e["inputs"][0])  # the rows up to the last followed sample's (of a batch of 6)
            assert x is not None and list(x.shape) == [_kept_rows(run, e["step"]), 5, 8]


def test_variants_weights_equal_recomputed(variants):
    run, ins, _ = variants
    for a in ins["attention"]:
        got = run.values(a["weights"])
        x = run.values(run.events[a["event"]]["inputs"][0])
        if a["module"] == "causal3d":  # F.softmax(dim=2) over [B, T, T], kept as [1, T, T]
            s = (x @ x.transpose(1, 2) / math.sqrt(x.shape[-1])).masked_fill(
                ~torch.ones(5, 5, dtype=torch.bool).tril(), float("-inf"))
            expect = F.softmax(s, dim=2)[a["sample"]].unsqueeze(0)
        elif a["module"] == "fmha":  # F.multi_head_attention_forward (sequence first), no biases, 2 heads
            w = _param(run, a["step"], "fmha.in_proj")
            q, k = F.linear(x, w[:16]).view(x.shape[0], 5, 2, 2, 4).permute(2, 0, 3, 1, 4)
            expect = torch.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1)[a["sample"]]
        else:  # nn.Softmax inside `heads`, attributed to `heads`
            w = _param(run, a["step"], "heads.qk.weight")
            b = _param(run, a["step"], "heads.qk.bias")
            q, k = F.linear(x, w, b).view(x.shape[0], 5, 2, 2, 4).permute(2, 0, 3, 1, 4)  # the kept rows
            expect = torch.softmax(q @ k.transpose(-2, -1), dim=-1)[a["sample"]]
        assert got.shape == expect.shape and torch.allclose(got, expect, atol=1e-6), a["module"]
        assert a["tokens"] == [] and a["token_labels"] == []  # float inputs: no token ids
