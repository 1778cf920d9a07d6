"""The loss record: which call, how it reduces, per-sample and per-token values."""
import torch
import torch.nn.functional as F

from conftest import SCRIPTS, load_run, run_file_of, run_tvis, step_lines


def test_token_layout_and_ignore_index(tvis, tmp_path):
    rec = run_tvis(tvis, SCRIPTS / "lm_adamw.py", steps=2, out=tmp_path)
    assert rec.returncode == 0, rec.stderr
    printed = [l.split()[3] for l in step_lines(rec.stdout)]
    run = load_run(run_file_of(rec.stdout))
    losses = sorted(run.losses, key=lambda l: l["step"])
    assert [l["value_repr"] for l in losses] == printed
    l0 = losses[0]
    assert l0["call"] == "torch.nn.functional.cross_entropy" and l0["reduction"] == "mean"
    assert {"key": "ignore_index", "value": "-100"} in l0["args"]
    tok = l0["tokens"]
    assert (tok["batch"], tok["tokens"], tok["vocab"]) == (6, 12, 20)
    assert tok["ignored"] == [b * 12 + t for b in range(6) for t in (9, 10, 11)]
    logits, targets = run.values(l0["logits"]), run.values(l0["targets"])
    assert logits.shape == (72, 20) and targets.shape == (72,)
    expect = F.cross_entropy(logits.double(), targets, ignore_index=-100, reduction="none")
    got = run.values(tok["token_losses"])
    assert got.shape == (6, 12)
    assert torch.allclose(got.double(), expect.reshape(6, 12), rtol=1e-6, atol=1e-6)
    assert abs(expect[targets != -100].mean().item() - float(l0["value_repr"])) < 1e-5
    for s in l0["samples"]:
        row = s["batch_row"] if "batch_row" in s else 0
        lp = torch.log_softmax(logits[row].double(), 0)
        assert abs(s["neg_log_p"] + lp[s["target"]].item()) < 1e-9
        assert abs(s["p_target"] - lp[s["target"]].exp().item()) < 1e-9
        assert s["predicted"] == int(logits[row].argmax())


def test_loss_module_is_the_call(tvis, tmp_path):
    rec = run_tvis(tvis, SCRIPTS / "cnn_dropout.py", steps=1, out=tmp_path)
    assert rec.returncode == 0, rec.stderr
    run = load_run(run_file_of(rec.stdout))
    l0 = run.losses[0]
    assert l0["call"] == "torch.nn.CrossEntropyLoss" and l0["reduction"] == "mean"
    assert len(l0["samples"]) == 4
    ev = run.events[l0["event"]]
    assert ev["name"] == "CrossEntropyLoss" and ev["phase"] == "Loss"
    assert run.values(l0["targets"]).shape == (16,)


def test_custom_and_composite_losses(tvis, tmp_path):
    """No recognised call fed a hand-written loss: no event (UINT64_MAX), no
    call, its grad_fn as `outer` (an F.l1_loss logged beside it is not taken
    for it). Cross-entropy plus a regulariser: the cross_entropy call, and
    `outer` says backward() ran on more than its output."""
    script = SCRIPTS.parent.parent / "e2e" / "pages" / "custom_loss.py"
    for kind, call, outer in (("mse", "", "MeanBackward0"),
                              ("ce_reg", "torch.nn.functional.cross_entropy", "AddBackward0")):
        out = tmp_path / kind
        ref_path = tmp_path / (kind + "_ref.pt")
        rec = run_tvis(tvis, script, str(ref_path), kind, steps=2, out=out)
        assert rec.returncode == 0, rec.stderr
        run = load_run(run_file_of(rec.stdout))
        ref = torch.load(ref_path)
        assert [l["value_repr"] for l in sorted(run.losses, key=lambda l: l["step"])] == [repr(v) for v in ref["losses"][:2]]
        for l in run.losses:
            assert l.get("call", "") == call and l.get("outer", "") == outer, l
            if kind == "mse":
                assert l["event"] == 2 ** 64 - 1 and not l.get("args") and not l.get("samples")
            else:
                ev = run.events[l["event"]]
                assert ev["kind"] == "LossCall" and ev["name"] == call, ev
                assert ev["call_line"] == ref["ce_line"]


def test_loss_input_is_the_leading_part_of_the_head_logits_copy(tvis, tmp_path):
    """The loss input logits.reshape(-1, V), kept to --max-elems rows, is
    the leading part of the head's output [B, T, V] (kept whole: every row is
    a followed sample's): one stored copy (run_builder.h), and both read back
    as the script's logits, bit for bit. The logits are larger than a
    TensorData chunk, and the embeddings capture stores a record between the
    two, which used to close the logits' chunk first."""
    dump = tmp_path / "logits.pt"
    rec = run_tvis(tvis, SCRIPTS / "wide_head_lm.py", "--dump", dump, steps=1, out=tmp_path / "runs",
                   opts=("--max-elems", "1000000"))
    assert rec.returncode == 0, rec.stderr
    run = load_run(run_file_of(rec.stdout))
    logits = torch.load(dump)
    flat = logits.reshape(-1, logits.shape[-1])
    head = [(i, t) for i, t in run.tensors.items() if t["role"] == "Output" and list(t["shape"]) == [4, 72, 8192]]
    loss_in = [(i, t) for i, t in run.tensors.items() if t["role"] == "Input" and list(t["shape"]) == [288, 8192]]
    assert len(head) == 1 and len(loss_in) == 1, (head, loss_in)
    (hid, h), (lid, li) = head[0], loss_in[0]
    assert (li["data_chunk"], li["data_offset"]) == (h["data_chunk"], h["data_offset"]), (h, li)
    assert li["data_size"] == 122 * 8192 * 4 < h["data_size"] == logits.numel() * 4
    got_head, got_in = run.values(hid), run.values(lid)
    assert torch.equal(got_head.reshape(-1).view(torch.int32), logits.reshape(-1).view(torch.int32))
    assert got_in.shape[0] == 122
    assert torch.equal(got_in.reshape(122, -1).view(torch.int32), flat[:122].view(torch.int32))
