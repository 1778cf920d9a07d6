"""Embeddings capture (issue 4): per-sample vectors at each top-level module and
nn.Embedding tables.

torchvision ResNet-18 (tests/recorder/scripts/resnet18.py, batch 8): every step
has one record per child of the root called in its forward (conv1 ... fc), for
the followed samples (the first 4 rows: the script has no DataLoader) with
their class from the loss target; at step 0 the vectors equal the pooled
activations of an independent re-run of the same model and batch, and at every
step the pooled recorded outputs of those calls. Training is bit-identical.
Every batch row (issue 34): each record also holds every row's pooled vector
(`rows` = 0..7, `positions` = the followed rows, `batch_size` 8), so a module
has batch rows x steps vectors; at every step they equal the pooled outputs of
an independent re-run of the same training (same seed, batches and SGD), the
rows' labels its targets, and the followed vectors the rows at `positions`.
The bound (leading MAX_ROWS rows plus followed rows past them; at most MAX_DIM
dims, wider vectors averaged over contiguous groups) is checked in process.
The bundled LM: the token table's rows are its initial weights labelled with
the script's characters (found as `vocab.chars`), the positional table has no
labels, blocks are pooled over tokens, the [T, D] positional output is named in
a notice; a small --max-elems keeps only the leading rows (and their labels).
"""
import importlib.util

import pytest
import torch
import torchvision

from conftest import ROOT, SCRIPTS, inspect_json, load_run, run_file_of, run_plain, run_tvis, step_lines
from insight_records import assert_tensor_roles, insights

RESNET = SCRIPTS / "resnet18.py"
LM = ROOT / "examples" / "char_transformer.py"
STEPS, BATCH, SAMPLES = 3, 8, 4
TOP = ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4", "avgpool", "fc"]


def _pool(t):
    return t.mean(dim=tuple(range(2, t.dim()))) if t.dim() >= 4 else t.mean(dim=1) if t.dim() == 3 else t


def _close(a, b):
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6)


def _record(tvis, script, out, *args, opts=()):
    rec = run_tvis(tvis, script, "--steps", STEPS, *args, steps=STEPS, out=out, opts=opts)
    assert rec.returncode == 0, rec.stderr
    path = run_file_of(rec.stdout)
    run = load_run(path)
    records = insights(run)
    assert_tensor_roles(run, records)
    return rec, run, records, inspect_json(tvis, path)


@pytest.fixture(scope="module")
def resnet(tvis, tmp_path_factory):
    plain = run_plain(RESNET, "--steps", STEPS, "--batch", BATCH)
    assert plain.returncode == 0, plain.stderr
    rec, run, ins, info = _record(tvis, RESNET, tmp_path_factory.mktemp("resnet"), "--batch", BATCH)
    assert step_lines(rec.stdout) == step_lines(plain.stdout), "losses/weights differ under tvis run"
    return run, ins, info


def _lm_module():
    spec = importlib.util.spec_from_file_location("char_transformer_for_embeddings", LM)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _resnet_rerun():
    """Independent re-run of resnet18.py's training: per step, each child's pooled outputs of the whole batch
    and the batch's targets."""
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    steps = []

    def keep(name):
        def hook(module, inputs, output):
            steps[-1][0][name] = _pool(output.detach()).clone()  # before an in-place ReLU rewrites it
        return hook

    hooks = [m.register_forward_hook(keep(n)) for n, m in model.named_children()]
    for _ in range(STEPS):
        x = torch.randn(BATCH, 3, 32, 32)
        y = torch.randint(0, 10, (BATCH,))
        steps.append(({}, [str(v) for v in y.tolist()]))
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    for h in hooks:
        h.remove()
    return steps


def _resnet_step0():
    """The re-run's first forward: the followed samples' (the first SAMPLES rows) pooled outputs and labels."""
    pooled, labels = _resnet_rerun()[0]
    return {k: v[:SAMPLES] for k, v in pooled.items()}, labels[:SAMPLES]


def test_resnet_records_every_top_level_module(resnet):
    _, ins, info = resnet
    assert info["captured"]["embeddings"] == TOP
    for step in range(STEPS):
        recs = [r for r in ins["embeddings"] if r["step"] == step]
        assert [r["module"] for r in recs] == TOP
        assert all(r["samples"] == list(range(SAMPLES)) for r in recs)


def test_resnet_step0_equals_independent_rerun(resnet):
    run, ins, _ = resnet
    pooled, labels = _resnet_step0()
    for r in (r for r in ins["embeddings"] if r["step"] == 0):
        v = run.values(r["vectors"])
        assert _close(v, pooled[r["module"]]), "%s: max diff %g" % (r["module"], (v - pooled[r["module"]]).abs().max())
        assert r["labels"] == labels


def test_resnet_vectors_equal_pooled_recorded_outputs(resnet):
    run, ins, _ = resnet
    for r in ins["embeddings"]:
        t = run.tensors[r["vectors"]]
        call = run.events[t["event"]]
        assert call["name"] == r["module"] and call["step"] == r["step"]
        out = run.values(call["outputs"][0])
        assert _close(run.values(r["vectors"]), _pool(out[:SAMPLES])), r["module"]
    targets = {s: run.values(next(l for l in run.losses if l["step"] == s)["targets"]) for s in range(STEPS)}
    for r in ins["embeddings"]:
        assert r["labels"] == [str(v) for v in targets[r["step"]][:SAMPLES].tolist()]


def test_resnet_every_batch_row_per_layer(resnet):
    """The PCA's points: batch rows x steps per module, the followed rows marked."""
    _, ins, _ = resnet
    for module in TOP:
        recs = [r for r in ins["embeddings"] if r["module"] == module]
        assert sum(len(r["rows"]) for r in recs) == BATCH * STEPS, module
        for r in recs:
            assert r["rows"] == list(range(BATCH)) and r["batch_size"] == BATCH
            assert r["positions"] == list(range(SAMPLES))  # no DataLoader: the first rows are followed


def test_resnet_batch_rows_equal_independent_rerun(resnet):
    run, ins, _ = resnet
    rerun = _resnet_rerun()
    for r in ins["embeddings"]:
        pooled, labels = rerun[r["step"]]
        v = run.values(r["batch_vectors"])
        want = pooled[r["module"]]
        assert list(v.shape) == [BATCH, want.shape[1]]  # ResNet-18's widest output, 512, is not narrowed
        assert _close(v, want), "%s step %d: max diff %g" % (r["module"], r["step"], (v - want).abs().max())
        assert r["row_labels"] == labels
        followed = run.values(r["vectors"])
        assert torch.equal(followed, v[[r["rows"].index(p) for p in r["positions"]]]), r["module"]


def test_batch_row_bound():
    """Which rows are kept, and how a wide vector is narrowed, without a recording."""
    from tvis.captures.embeddings.capture import MAX_DIM, MAX_ROWS, batch_rows_of, narrowed, pooled
    assert batch_rows_of(8, [2, 5]) == list(range(8))
    assert batch_rows_of(MAX_ROWS + 50, [3, MAX_ROWS + 40, MAX_ROWS + 7]) == \
        list(range(MAX_ROWS)) + [MAX_ROWS + 7, MAX_ROWS + 40]
    assert batch_rows_of(10, [1], max_rows=4) == [0, 1, 2, 3]
    g = torch.Generator().manual_seed(1)
    wide = torch.randn(3, 2 * MAX_DIM + 3, generator=g)
    n = narrowed(wide)
    assert list(n.shape) == [3, MAX_DIM]
    d = wide.shape[1]
    for k in (0, 1, MAX_DIM // 2, MAX_DIM - 1):  # group k: dims floor(k d / m) .. ceil((k + 1) d / m) - 1
        lo, hi = (k * d) // MAX_DIM, -((-(k + 1) * d) // MAX_DIM)
        assert torch.allclose(n[:, k], wide[:, lo:hi].mean(dim=1)), k
    assert narrowed(wide[:, :MAX_DIM]) is not None and torch.equal(narrowed(wide[:, :MAX_DIM]), wide[:, :MAX_DIM])
    x = torch.randn(6, 4, 5, 5, generator=g, requires_grad=True)
    p = pooled(x * 2, [0, 1, 2])  # leading rows: a slice; others: an index
    assert not p.requires_grad and torch.allclose(p, (x * 2).detach()[:3].mean(dim=(2, 3)))
    assert torch.allclose(pooled(x, [4, 1]), x.detach()[[4, 1]].mean(dim=(2, 3)))


@pytest.fixture(scope="module")
def lm(tvis, tmp_path_factory):
    return _record(tvis, LM, tmp_path_factory.mktemp("lm"))[1:]


def test_lm_tables_with_vocabulary_labels(lm):
    run, ins, _ = lm
    mod = _lm_module()
    chars = mod.Vocab(mod.CORPUS).chars
    torch.manual_seed(0)
    model = mod.CharLM(len(chars), 48)
    tables = {t["module"]: t for t in ins["tables"]}
    assert set(tables) == {"tok", "pos"}
    assert tables["tok"]["labels"] == chars and tables["pos"]["labels"] == []
    assert torch.equal(run.values(tables["tok"]["rows"]), model.tok.weight.detach())
    assert torch.equal(run.values(tables["pos"]["rows"]), model.pos.weight.detach())


def test_lm_vectors_pooled_over_tokens(lm):
    run, ins, info = lm
    assert info["captured"]["embeddings"] == ["tok", "blocks.0", "blocks.1", "ln", "head"]
    for r in ins["embeddings"]:
        call = run.events[run.tensors[r["vectors"]]["event"]]
        out = run.values(call["outputs"][0])
        assert _close(run.values(r["vectors"]), out[:SAMPLES].mean(dim=1)), r["module"]
        assert r["labels"] == [""] * SAMPLES  # a language model's batch has no class per sample
    notice = next(n["message"] for n in run.meta["notices"] if n["code"] == "embeddings_unbatched")
    assert "pos [48, 48]" in notice


def test_lm_table_under_element_budget(tvis, tmp_path):
    _, run, ins, _ = _record(tvis, LM, tmp_path, opts=["--max-elems", "300"])
    tok = next(t for t in ins["tables"] if t["module"] == "tok")
    rows = run.values(tok["rows"])
    assert list(rows.shape) == [300 // 48, 48]
    assert tok["labels"] == _lm_module().Vocab(_lm_module().CORPUS).chars[: 300 // 48]


class _TextDataset(torch.utils.data.Dataset):
    def __init__(self):
        self.words = ["the", "cat", "sat", "the", "mat"]  # the corpus: repeats, so not a vocabulary
        self.stoi = {"<unk>": 0, "the": 1, "cat": 2, "sat": 3, "mat": 4}

    def __len__(self):
        return 1

    def __getitem__(self, i):
        return torch.tensor([self.stoi[w] for w in self.words])


def test_vocabulary_rule_in_process():
    """The lookup behind token labels: a DataLoader's dataset's str->int `stoi` is inverted; a repeating token
    list is no vocabulary; a local list named `itos` is; tables take the vocabulary of their row count."""
    from tvis.session.project_code import ProjectFiles
    from tvis.captures.vocabulary import Vocabularies

    def model_call_site(loader):
        itos = ["a", "b", "c"]  # noqa: F841 (found on this frame)
        vocab = Vocabularies(ProjectFiles(str(SCRIPTS.parent)))
        return vocab.for_table(5), vocab.for_table(3), vocab.for_table(4), vocab.for_ids(4), vocab.for_ids(9)

    by5, by3, by4, ids4, ids9 = model_call_site(torch.utils.data.DataLoader(_TextDataset()))
    assert by5 == ["<unk>", "the", "cat", "sat", "mat"] and by3 == ["a", "b", "c"] and by4 == []
    assert ids4 == by5 and ids9 == []  # ids up to 4 fit the 5-token vocabulary only
