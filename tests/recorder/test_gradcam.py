"""Grad-CAM capture (recorder/python/tvis/captures/gradcam) on real models.

- maps equal an independent reference: the test rebuilds the model from the
  state the script saved before each step, feeds a detached copy of a layer's
  activation through the rest of the network and differentiates sample i's
  class score alone (BatchNorm in train mode, batch > 1; the batch-summed
  variant is shown to differ, so the comparison can fail);
- the user's program is untouched: losses and weight digests bit-identical
  with and without tvis (BN net, ResNet-18, digits example), the user's tensor
  / node / module / leaf hooks fire as often and see the same values, a
  retain_grad() tensor's .grad is the same;
- reentrant and non-reentrant checkpoint: notice naming why, training unchanged;
- --no-gradcam: no maps and a notice;
- classes: by default the predicted class of each followed sample (its map
  listed for the true class too when they are equal; misclassified samples
  named in a notice); --gradcam-true adds the true class of the others;
- forwards no backward reaches (capped, named in a notice), gradient
  accumulation (maps per backward), a module called twice (path#2).
"""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

from conftest import SCRIPTS, inspect_json, load_run, run_plain, run_tvis, step_lines

TARGET = {"Predicted": 0, "True": 1}


def gradcam_records(run):
    from tvis._read import _json
    out = []
    for ordinal, kind, *_ in run.chunks:
        if kind != "insights":
            continue
        for g in _json(run.file.chunk_json(ordinal)).get("body", {}).get("gradcam", []):
            out.append({"step": g.get("step", 0), "module": g.get("module_", ""), "sample": g.get("sample", 0),
                        "target": TARGET[g.get("target", "Predicted")], "class_index": g.get("class_index", 0),
                        "map": g.get("map", 0)})
    return out


def record_and_compare(tvis, tmp_path, script, *args, steps=3, opts=()):
    """Runs the script plainly and under tvis; asserts identical output; returns (run, inspect json, stdout)."""
    plain = run_plain(SCRIPTS / script, *args, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, SCRIPTS / script, *args, steps=steps, out=tmp_path / "runs", opts=opts, cwd=tmp_path)
    assert rec.returncode == 0, rec.stderr
    lines = [l for l in plain.stdout.splitlines() if not l.startswith("tvis")]
    got = [l for l in rec.stdout.splitlines() if not l.startswith("tvis")]
    assert got == lines[:len(got)] and len(step_lines(rec.stdout)) == steps, (rec.stdout, plain.stdout)
    path = next((tmp_path / "runs").glob("*/run.tvis"))
    return load_run(path), inspect_json(tvis, path), rec.stdout


def cam(a, g):
    return (g.mean(dim=(1, 2))[:, None, None] * a).sum(0).clamp_min(0)


def reference_maps(acts, tail, rows, classes):
    """{(row, class): map} from a fresh graph: tail(A) with A a detached leaf copy of the activation."""
    a = acts.detach().clone().requires_grad_(True)
    scores = tail(a)
    out = {}
    for r in rows:
        for c in classes[r]:
            g, = torch.autograd.grad(scores[r, c], a, retain_graph=True)
            out[(r, c)] = cam(a[r].detach(), g[r])
    return out


def expected_targets(predicted, true, all_true):
    """{(sample, target)} a step has: predicted always; true where equal, or everywhere with --gradcam-true."""
    return {(s, t) for s in range(len(predicted)) for t in (0, 1) if t == 0 or all_true or predicted[s] == true[s]}


def assert_maps_match(run, records, step, module, ref, predicted, true, all_true):
    mine = {(r["sample"], r["target"]): r for r in records if r["step"] == step and r["module"] == module}
    assert set(mine) == expected_targets(predicted, true, all_true), (module, sorted(mine), predicted, true)
    for (s, t), r in mine.items():
        cls = predicted[s] if t == 0 else true[s]
        assert r["class_index"] == cls
        got = run.values(r["map"])
        want = ref[(s, cls)]
        assert got.dtype == torch.float32 and got.shape == want.shape
        scale = float(want.abs().max()) or 1.0
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5 * scale, msg="%s step %d sample %d target %d"
                                   % (module, step, s, t))


@pytest.mark.parametrize("norm", ["batch", "group"])
def test_maps_equal_reference_under_batchnorm_train(tvis, tmp_path, norm, monkeypatch):
    """BatchNorm in train mode couples the samples (one pass per sample and
    class); GroupNorm does not (merged passes: one for all followed samples,
    a second for the true classes of misclassified ones). Both equal the
    reference of each score alone."""
    import json
    import sys
    sys.path.insert(0, str(SCRIPTS))
    from gradcam_bn_net import build
    dump = tmp_path / "dump"
    monkeypatch.setenv("TVIS_STATS_FILE", str(tmp_path / "stats.json"))
    run, js, _ = record_and_compare(tvis, tmp_path, "gradcam_bn_net.py", "--steps", 3, "--cam-dump", dump,
                                    "--norm", norm, opts=["--gradcam-true"])
    records = gradcam_records(run)
    assert js["captured"]["gradcam"] == [str(i) for i in range(11)]  # every module with a [B, C, H, W] output
    assert not any("gradcam_predicted_only" in n or "no true-class map" in n for n in js["notices"])
    coupled, wrong = 0.0, 0
    for step in range(3):
        d = torch.load(dump / ("step%d.pt" % step))
        model = build(norm)
        model.load_state_dict(d["state"])
        model.train()
        acts, h = [], d["x"]
        with torch.no_grad():
            for m in model:
                h = m(h)
                acts.append(h)
        predicted, true = h[:4].argmax(1).tolist(), d["y"][:4].tolist()
        wrong += sum(p != t for p, t in zip(predicted, true))
        classes = {r: sorted({predicted[r], true[r]}) for r in range(4)}
        for j in range(11):
            tail = model[j + 1:]
            ref = reference_maps(acts[j], tail, range(4), classes)
            assert_maps_match(run, records, step, str(j), ref, predicted, true, all_true=True)
            # what a batch-summed pass would give instead (cross-sample BatchNorm terms)
            a = acts[j].detach().clone().requires_grad_(True)
            s = tail(a)
            g, = torch.autograd.grad(s[range(4), predicted].sum(), a)
            for r in range(4):
                diff = float((cam(a[r].detach(), g[r]) - ref[(r, predicted[r])]).abs().max())
                coupled = max(coupled, diff / (float(ref[(r, predicted[r])].abs().max()) or 1.0))
    counters = json.load(open(tmp_path / "stats.json"))["captures"]["gradcam"]
    pairs = 3 * 4 + wrong  # the followed samples' predicted classes, and the true ones they missed
    if norm == "batch":
        assert coupled > 1e-2, "the batch couples the samples too weakly for this test to tell"
        assert counters["passes"] == pairs and counters["merged_backwards"] == 0, counters
    else:
        assert coupled < 1e-5, "GroupNorm coupled the samples: %g" % coupled
        # merged: at most two passes a step, and once one sample's own pass to check them against
        assert counters["merged_backwards"] == 3 and counters["passes"] <= 2 * 3 + 1 < pairs, counters
    assert wrong > 0, "no misclassified followed sample: --gradcam-true was not exercised"


def test_resnet18_layers_reference_and_fidelity(tvis, tmp_path):
    dump = tmp_path / "dump"
    run, js, _ = record_and_compare(tvis, tmp_path, "gradcam_resnet18.py", "--steps", 2, "--cam-dump", dump,
                                    steps=2)
    convs = [n for n, m in torchvision.models.resnet18(num_classes=10).named_modules() if isinstance(m, nn.Conv2d)]
    listed = js["captured"]["gradcam"]
    assert len(convs) == 20 and set(convs) <= set(listed), listed
    assert {"layer3", "layer4", "layer4.1.relu#2"} <= set(listed)
    assert any("modified in place" in n and "layer1.0.bn1" in n for n in js["notices"]), js["notices"]
    assert not any(".bn" in n or n == "bn1" for n in listed), listed  # outputs a later in-place ReLU / += changed
    records = gradcam_records(run)
    shared = {}  # a container returning its last child's output: one map tensor, a record per layer name
    for r in records:
        if r["module"] in ("layer4", "layer4.1", "layer4.1.relu#2"):
            shared.setdefault((r["step"], r["sample"], r["target"]), set()).add(r["map"])
    assert {(st, s) for st, s, t in shared if t == 0} == {(st, s) for st in range(2) for s in range(2)}, shared
    assert all(len(v) == 1 for v in shared.values()), shared
    wrong = 0
    for step in range(2):
        d = torch.load(dump / ("step%d.pt" % step))
        model = torchvision.models.resnet18(num_classes=10)
        model.load_state_dict(d["state"])
        model.train()
        acts = {}
        hooks = [getattr(model, n).register_forward_hook(lambda m, i, o, n=n: acts.__setitem__(n, o.detach().clone()))
                 for n in ("layer3", "layer4")]
        with torch.no_grad():
            logits = model(d["x"])
        for h in hooks:
            h.remove()
        predicted, true = logits[:2].argmax(1).tolist(), d["y"][:2].tolist()
        wrong += sum(p != t for p, t in zip(predicted, true))
        classes = {r: [predicted[r]] for r in range(2)}  # the default: predicted class only
        head = lambda a: model.fc(torch.flatten(model.avgpool(a), 1))  # noqa: E731
        assert_maps_match(run, records, step, "layer4", reference_maps(acts["layer4"], head, range(2), classes),
                          predicted, true, all_true=False)
        assert_maps_match(run, records, step, "layer3",
                          reference_maps(acts["layer3"], lambda a: head(model.layer4(a)), range(2), classes),
                          predicted, true, all_true=False)
    # the misclassified followed samples (an untrained 10-class model) are named, with the way to get their maps
    assert wrong > 0
    assert any("no true-class map" in n and "--gradcam-true" in n for n in js["notices"]), js["notices"]


def test_user_hooks_and_retained_grad_unchanged(tvis, tmp_path):
    run, js, out = record_and_compare(tvis, tmp_path, "gradcam_user_hooks.py", "--steps", 3)
    hook_lines = [l for l in out.splitlines() if l.startswith("hooks ")]
    assert len(hook_lines) == 3 and all(l.startswith("hooks 4 ") for l in hook_lines), hook_lines
    assert any("custom autograd.Function __main__.Shift;" in n for n in js["notices"]), js["notices"]
    # the extra passes did run through the hooked nodes: maps below them exist for every step
    records = gradcam_records(run)
    assert {(r["step"], r["module"]) for r in records} >= {(s, m) for s in range(3) for m in ("conv1", "bn1", "conv2")}


def test_batched_and_single_passes_agree_with_per_score_gradients():
    from tvis.captures.gradcam.maps import class_gradients
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Conv2d(4, 4, 3),
                          nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(16, 5))
    acts = []
    for i in (0, 3):
        model[i].register_forward_hook(lambda m, inp, out: acts.append(out))
    scores = model(torch.randn(5, 3, 8, 8))
    pairs = [(0, 1), (0, 2), (3, 0), (4, 4), (2, 2)]
    got = {}
    for batched in (True, False):
        got[batched] = {}
        refused = class_gradients(scores, pairs, acts, lambda k, g, d=got[batched]: d.__setitem__(k, g), batched)
        assert refused is None and sorted(got[batched]) == list(range(len(pairs)))
    for k, (r, c) in enumerate(pairs):
        want = torch.autograd.grad(scores[r, c], acts, retain_graph=True)
        for batched in (True, False):
            for g, w in zip(got[batched][k], want):
                torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-8)


def _per_score(scores, pairs, acts):
    return [torch.autograd.grad(scores[r, c], acts, retain_graph=True) for r, c in pairs]


def test_merged_pass_when_no_operation_mixes_the_rows():
    """GroupNorm normalises each sample alone: one pass per set of distinct
    rows gives every pair's row exactly its own score's gradient (a row with
    two classes takes a second pass)."""
    from tvis.captures.gradcam.maps import class_gradients
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.GroupNorm(2, 4), nn.ReLU(), nn.Conv2d(4, 4, 3),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(16, 5))
    acts = []
    for i in (0, 3):
        model[i].register_forward_hook(lambda m, inp, out: acts.append(out))
    scores = model(torch.randn(6, 3, 8, 8))
    pairs = [(0, 1), (3, 0), (4, 4), (2, 2), (0, 3)]
    got, counts = {}, {}
    class_gradients(scores, pairs, acts, lambda k, g: got.__setitem__(k, g), False, None, True, counts)
    assert counts == {"passes": 2, "merged": True, "mixing": False}, counts
    for k, ((r, c), want) in enumerate(zip(pairs, _per_score(scores, pairs, acts))):
        for g, w in zip(got[k], want):
            torch.testing.assert_close(g[r], w[r], rtol=0, atol=0)  # the same arithmetic, bit for bit


def test_merged_pass_undone_when_batchnorm_mixes_the_rows():
    """BatchNorm in train mode mixes the rows: the merged pass's gradient
    reaches the rows no pair names, so every pair gets its own pass after it,
    and the gradients are each score's alone."""
    from tvis.captures.gradcam.maps import class_gradients, executed_nodes, mixes_batch
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                          nn.Linear(4 * 64, 5))
    acts = []
    model[0].register_forward_hook(lambda m, inp, out: acts.append(out))
    scores = model(torch.randn(6, 3, 8, 8))
    assert mixes_batch(executed_nodes(scores.grad_fn, [acts[0].grad_fn]))
    pairs = [(0, 1), (3, 0)]
    got, counts = {}, {}
    class_gradients(scores, pairs, acts, lambda k, g: got.__setitem__(k, g), False, None, True, counts)
    assert counts == {"passes": 1 + len(pairs), "merged": False, "mixing": True}, counts
    for k, want in enumerate(_per_score(scores, pairs, acts)):
        torch.testing.assert_close(got[k][0], want[0], rtol=0, atol=0)
    model.eval()
    acts.clear()
    scores = model(torch.randn(6, 3, 8, 8))
    assert not mixes_batch(executed_nodes(scores.grad_fn, [acts[0].grad_fn]))  # running statistics: rows alone


class _PairRows(nn.Module):
    """Mixes rows 0 and 1 with each other only (a siamese pair inside the batch)."""
    def forward(self, x):
        y = x.clone()
        y[0] = x[0] + 0.5 * x[1]
        y[1] = x[1] + 0.5 * x[0]
        return y


def test_merged_pass_checked_against_one_own_pass():
    """Rows mixed only among the named ones leave the other rows untouched;
    the check against the first pair's own pass catches it and every pair
    gets its own pass."""
    from tvis.captures.gradcam.maps import class_gradients
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), _PairRows(), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 64, 5))
    acts = []
    model[0].register_forward_hook(lambda m, inp, out: acts.append(out))
    scores = model(torch.randn(6, 3, 8, 8))
    pairs = [(0, 1), (1, 3)]
    got, counts = {}, {}
    class_gradients(scores, pairs, acts, lambda k, g: got.__setitem__(k, g), False, None, True, counts, verify=True)
    assert counts == {"passes": 2 + len(pairs), "merged": False, "mixing": True}, counts
    for k, ((r, c), want) in enumerate(zip(pairs, _per_score(scores, pairs, acts))):
        torch.testing.assert_close(got[k][0][r], want[0][r], rtol=0, atol=0)
    got, counts = {}, {}  # without the check the merged pass would have stood
    class_gradients(scores, pairs, acts, lambda k, g: got.__setitem__(k, g), False, None, True, counts)
    assert counts["merged"] is True


def test_no_merged_pass_when_every_row_is_named():
    """With every row named by a pair no other row can show mixing: one pass per pair."""
    from tvis.captures.gradcam.maps import class_gradients
    model = nn.Sequential(nn.Conv2d(3, 2, 3), nn.Flatten(), nn.Linear(2 * 36, 3))
    acts = []
    model[0].register_forward_hook(lambda m, inp, out: acts.append(out))
    scores = model(torch.randn(2, 3, 8, 8))
    counts = {}
    class_gradients(scores, [(0, 1), (1, 2)], acts, lambda k, g: None, False, None, True, counts)
    assert counts == {"passes": 2, "merged": False, "mixing": False}, counts


def test_guard_silences_hooks_in_an_extra_pass():
    from tvis.captures.gradcam.guard import HookGuard
    guard = HookGuard()
    guard.install()
    try:
        conv, fc = nn.Conv2d(2, 3, 3), nn.Linear(3 * 4, 2)
        x = torch.randn(2, 2, 4, 4)
        a = conv(x)
        b = F.relu(a)
        fired = []
        b.register_hook(lambda g: fired.append("tensor"))
        b.grad_fn.register_hook(lambda gi, go: fired.append("node"))
        a.retain_grad()
        out = fc(b.flatten(1))

        def extra_pass():
            return torch.autograd.grad(out[0, 1], [conv.weight], retain_graph=True)

        extra_pass()  # without the guard an extra pass fires the hooks and writes a.grad
        assert fired == ["tensor", "node"] and a.grad is not None and conv.weight.grad is None
        before = a.grad
        fired.clear()
        with guard.quiet():
            g, = extra_pass()
        assert fired == [] and a.grad is before and conv.weight.grad is None and g.abs().sum() > 0
        out.sum().backward()  # the user's backward still runs the user's hooks
        assert fired == ["tensor", "node"] and conv.weight.grad is not None
    finally:
        guard.uninstall()
    assert "retain_grad" not in torch.Tensor.__dict__


def test_checkpoint_reentrant_skipped_with_notice(tvis, tmp_path):
    run, js, _ = record_and_compare(tvis, tmp_path, "gradcam_checkpoint.py", "--steps", 3, "--mode", "reentrant")
    assert any("reentrant torch.utils.checkpoint" in n and "refuses torch.autograd.grad" in n
               for n in js["notices"]), js["notices"]
    assert js["captured"]["gradcam"] == [] and gradcam_records(run) == []


def test_checkpoint_nonreentrant_skipped_with_notice(tvis, tmp_path):
    run, js, _ = record_and_compare(tvis, tmp_path, "gradcam_checkpoint.py", "--steps", 3, "--mode", "nonreentrant")
    assert any("saved-tensor hooks" in n and "non-reentrant" in n for n in js["notices"]), js["notices"]
    assert js["captured"]["gradcam"] == []


def test_digits_example_fidelity_and_layers(tvis, tmp_path):
    run, js, out = record_and_compare(tvis, tmp_path, "gradcam_digits.py", "--max-steps", 3)
    assert any(l.startswith("weights ") for l in out.splitlines()), out
    assert js["captured"]["gradcam"] == ["conv1", "pool", "conv2", "pool#2"]
    records = gradcam_records(run)
    assert_default_targets(records, js, [(s, m, i) for s in range(3) for m in ("conv1", "pool", "conv2", "pool#2")
                                         for i in range(4)])
    for r in records:
        m = run.values(r["map"])
        assert m.dtype == torch.float32 and m.dim() == 2 and bool((m >= 0).all()) and bool(torch.isfinite(m).all())


def assert_default_targets(records, js, base):
    """The default classes without the test knowing the predictions: each (step, module, sample) of ``base``
    has exactly one predicted-class map; a true-class record only repeats it (same class, same map tensor);
    the samples without one are named in the notice."""
    by_key = {}
    for r in records:
        by_key.setdefault((r["step"], r["module"], r["sample"]), {}).setdefault(r["target"], []).append(r)
    assert set(by_key) == set(base), sorted(set(by_key) ^ set(base))
    missing_true = 0
    for k, targets in by_key.items():
        predicted = targets[0]
        for t in targets.get(1, []):
            assert any(t["class_index"] == p["class_index"] and t["map"] == p["map"] for p in predicted), (k, targets)
        missing_true += 1 not in targets
    named = any("no true-class map" in n for n in js["notices"])
    assert named == (missing_true > 0), (missing_true, js["notices"])


def test_gradcam_true_option_adds_true_class_maps(tvis, tmp_path):
    run, js, _ = record_and_compare(tvis, tmp_path, "gradcam_digits.py", "--max-steps", 3, opts=["--gradcam-true"])
    records = gradcam_records(run)
    keys = {(r["step"], r["module"], r["sample"], r["target"]) for r in records}
    assert keys == {(s, m, i, t) for s in range(3) for m in ("conv1", "pool", "conv2", "pool#2")
                    for i in range(4) for t in (0, 1)}
    assert not any("no true-class map" in n for n in js["notices"]), js["notices"]
    split = [(r, q) for r in records for q in records if (r["step"], r["module"], r["sample"]) ==
             (q["step"], q["module"], q["sample"]) and r["target"] == 0 and q["target"] == 1
             and r["class_index"] != q["class_index"]]
    assert split and all(r["map"] != q["map"] for r, q in split)  # misclassified: a map of its own


def test_gradcam_true_and_no_gradcam_together_is_an_error(tvis, tmp_path):
    p = run_tvis(tvis, SCRIPTS / "gradcam_digits.py", "--max-steps", 3, out=tmp_path / "runs",
                 opts=["--no-gradcam", "--gradcam-true"], cwd=tmp_path)
    assert p.returncode != 0 and "--gradcam-true" in p.stderr and "--no-gradcam" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) <= 2 and not (tmp_path / "runs").exists(), p.stderr


def test_no_gradcam_option(tvis, tmp_path):
    run, js, out = record_and_compare(tvis, tmp_path, "gradcam_digits.py", "--max-steps", 3, opts=["--no-gradcam"])
    assert js["captured"]["gradcam"] == [] and gradcam_records(run) == []
    assert "Grad-CAM skipped by request (--no-gradcam)" in js["notices"], js["notices"]


def test_forwards_without_backward_and_gradient_accumulation(tvis, tmp_path):
    run, js, _ = record_and_compare(tvis, tmp_path, "gradcam_forwards.py", "--steps", 2, steps=2)
    assert any("latest 4 model calls" in n for n in js["notices"]), js["notices"]
    # names count only the calls the scores depend on (not the probe forwards); conv2 runs twice per forward
    assert js["captured"]["gradcam"] == ["conv1", "conv2", "conv2#2"]
    records = gradcam_records(run)
    per_key = {}
    for r in records:
        k = (r["step"], r["module"], r["sample"], r["target"])
        per_key[k] = per_key.get(k, 0) + 1
    base = {(s, m, i) for s in range(2) for m in ("conv1", "conv2", "conv2#2") for i in range(4)}
    # one predicted-class map per micro-batch backward (a true-class record where that micro-batch got it right)
    assert {k[:3] for k in per_key} == base and {k: v for k, v in per_key.items() if k[3] == 0} == \
        {k + (0,): 2 for k in base}
    assert all(v <= 2 for v in per_key.values())


def test_custom_backward_with_item_in_a_recorded_run(tvis, tmp_path):
    """A custom Function whose backward calls .item(): named in a notice, every pair gets its map (CPU passes
    run one pair at a time; the batched fallback is test_batched_pass_refused_falls_back_to_single_passes)."""
    run, js, _ = record_and_compare(tvis, tmp_path, "gradcam_item_backward.py", "--steps", 3,
                                    opts=["--gradcam-true"])
    notices = js["notices"]
    assert any("custom autograd.Function __main__.ClipGrad;" in n for n in notices), notices
    assert not any("Grad-CAM skipped" in n for n in notices), notices
    keys = {(r["step"], r["module"], r["sample"], r["target"]) for r in gradcam_records(run)}
    assert keys == {(s, m, i, t) for s in range(3) for m in ("conv1", "conv2") for i in range(4) for t in (0, 1)}


class _ItemBackward(torch.autograd.Function):
    """Identity; backward reads a value with .item(), which vmap refuses to batch."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g / max(1.0, g.norm().item())


def test_batched_pass_refused_falls_back_to_single_passes():
    from tvis.captures.gradcam.maps import class_gradients
    torch.manual_seed(0)
    conv, fc = nn.Conv2d(3, 4, 3), nn.Linear(4 * 36, 3)
    a = conv(torch.randn(4, 3, 8, 8))
    scores = fc(_ItemBackward.apply(a).flatten(1))
    pairs = [(0, 1), (1, 2), (3, 0)]
    got = {}
    refused = class_gradients(scores, pairs, [a], lambda k, g: got.__setitem__(k, g), batched=True)
    assert refused and sorted(got) == [0, 1, 2], refused
    for k, (r, c) in enumerate(pairs):
        want, = torch.autograd.grad(scores[r, c], a, retain_graph=True)
        torch.testing.assert_close(got[k][0], want, rtol=0, atol=0)
