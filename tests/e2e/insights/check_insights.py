"""Checks of the Insights pages' state().view against independent references.

    check_insights.py rollout REF.pt VIEW.json [QUERY PAINTED]
        rollout + shown weights vs NumPy from the script's own softmax; the
        tokens (the LM's characters, or [CLS] and patch positions) and, for an
        image model, the picture's query row (default 0) and map (rollout)
    check_insights.py layer_attention REF.pt STATE.json QUERY
        Replay's layer panel on an attention call: where token QUERY looks
        (head mean of the script's own softmax, [CLS] left off the patch
        grid; the LM's tokens as a strip, QUERY -1 the last token) painted
        On image, the module's layer by forward order
    check_insights.py gradcam REF.pt VIEW.json RUN  page map == recorded map == a Grad-CAM recomputed here
    check_insights.py pca VIEW.json RUN             PCA points vs NumPy's SVD of the recorded vectors, up to sign:
        every batch row's (batch_vectors) where recorded, the followed samples' otherwise; each point's
        step, row and followed sample (-1 none) as recorded
    check_insights.py table REF.pt VIEW.json        nn.Embedding table PCA vs NumPy's SVD of the script's own table
    check_insights.py hint VIEW.json RUN            Grad-CAM: the true-class hint exactly when the run has no true map
    check_insights.py recorded VIEW.json RUN SOURCE
        Attention whose weights the run recorded (rebuilt ones too): the
        shown weights and rollout equal NumPy over the run's own records of
        that step and sample, view.source is SOURCE, and a recorded mask
        matches view.masked and view.causal
    check_insights.py insights STATE.json REF.pt NAME...
        state().insights is exactly NAME...; state().library_attention names
        exactly the script's nn.MultiheadAttention modules (REF.pt's
        "library_attention", none when it has no such key)

Exit 0 on agreement; otherwise a message naming the first difference.
"""
import json
import os
import sys

import numpy as np
import torch

from tvis._read import _json, load


def view_of(path):
    return json.load(open(path))["view"]


def insight_records(run_path, kind):
    run = load(run_path)
    out = []
    for ordinal, chunk_kind, *_ in run.chunks:
        if chunk_kind == "insights":
            out += _json(run.file.chunk_json(ordinal)).get("body", {}).get(kind, [])
    return run, out


def check_rollout(v, names, layers, t):
    """The view's rollout over its rollout_layers equals NumPy's over `layers`
    ([H, T, T] per layer named `names`): R = prod(rownorm(mean_h W + I)).
    Returns (first, last, T)."""
    first, last = names.index(v["rollout_layers"][0]), names.index(v["rollout_layers"][-1])
    r = np.eye(t)
    for a in layers[first:last + 1]:
        aug = a.mean(0) + np.eye(t)
        aug /= aug.sum(1, keepdims=True)
        r = aug @ r
    np.testing.assert_allclose(np.array(v["rollout"]), r, atol=1e-6, err_msg="rollout")
    return first, last, t


def rollout(ref_path, view_path, query="0", painted="rollout"):
    v = view_of(view_path)
    step = torch.load(ref_path)["steps"][v["step"]]
    layers = [a[v["row"]].double().numpy() for a in step["att"]]  # [H, T, T] per layer, forward order
    names = v["layers"]
    assert len(names) == len(layers), (names, len(layers))
    shown = layers[names.index(v["module"])]
    want = shown.mean(0) if v["head"] is None else shown[v["head"]]
    np.testing.assert_allclose(np.array(v["weights"]), want, atol=1e-6, err_msg="shown weights")
    first, last, t = check_rollout(v, names, layers, want.shape[0])
    ref = torch.load(ref_path)
    if "chars" in ref:  # the character LM: its tokens, a causal mask, no picture
        chars = ref["chars"]
        want_tokens = ["_" if chars[i] == " " else chars[i] for i in step["x"][v["row"]].tolist()]  # a space drawn _
        assert v["tokens"] == want_tokens, ("tokens", v["tokens"], want_tokens)
        assert v["causal"] is True, "the script's masked attention is not reported causal"
        assert v["query"] is None and v["painted"] is None, "a character LM is not a patch grid"
    else:  # the image model: [CLS], then its n x n patches row by row; the picture shows where [CLS] looks
        n = int(round((t - 1) ** 0.5))
        want_tokens = ["[CLS]"] + ["(%d,%d)" % (k // n, k % n) for k in range(n * n)]
        assert v["tokens"] == want_tokens, ("tokens", v["tokens"], want_tokens)
        assert v["causal"] is False, "unmasked attention reported causal"
        assert v["query"] == int(query) and v["painted"] == painted, ("picture", v["query"], v["painted"], query, painted)
    print("rollout: layers %s..%s agree (T=%d)" % (names[first], names[last], t))


def layer_attention(ref_path, state_path, query):
    s = json.load(open(state_path))
    v, L = s["view"], s["view"]["layer"]
    A = L["attention"]
    assert A is not None and A["painted"] is True and A["problem"] is None, A
    assert A["module"] == L["module"] == v["module"], (A["module"], L["module"], v["module"])
    ref = torch.load(ref_path)
    step = ref["steps"][L["step"]]
    layer = int(L["module"].split(".")[1])  # blocks.K.attn: the K-th softmax of the forward
    mean = step["att"][layer][L["row"]].double().mean(0).numpy()  # [T, T], this sample's row of the batch
    t = mean.shape[0]
    q = int(query) if int(query) >= 0 else t - 1
    if "chars" in ref:  # the character LM: a strip over its tokens, the last token's row by default
        chars = [("_" if ref["chars"][i] == " " else ref["chars"][i]) for i in step["x"][L["row"]].tolist()]
        assert A["strip"] is True and A["grid_side"] == 0 and A["tokens"] == chars, (A["strip"], A["tokens"], chars)
        assert A["query"] == q and A["query_label"] == "token %d '%s'" % (q, chars[q]), (A["query"], A["query_label"])
        np.testing.assert_allclose(np.array(A["grid"]), mean[q][None, :], atol=1e-6, err_msg="layer attention")
        print("layer attention: %s step %d row %d, token %d agrees" % (L["module"], L["step"], L["row"], q))
        return
    n = int(round((t - 1) ** 0.5))
    assert A["cls"] is True and A["grid_side"] == n and n * n + 1 == t, (A["cls"], A["grid_side"], t)
    assert A["query"] == q, (A["query"], q)
    want_label = "[CLS]" if q == 0 else "patch (%d,%d)" % ((q - 1) // n, (q - 1) % n)
    assert A["query_label"] == want_label, (A["query_label"], want_label)
    np.testing.assert_allclose(np.array(A["grid"]), mean[q, 1:].reshape(n, n), atol=1e-6, err_msg="layer attention")
    print("layer attention: %s step %d row %d, query %s agrees" % (L["module"], L["step"], L["row"], want_label))


def gradcam(ref_path, view_path, run_path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from cnn import make_model
    v = view_of(view_path)
    step = torch.load(ref_path)["steps"][v["step"]]
    model = make_model()
    model.load_state_dict(step["state"])
    acts = {}
    model[int(v["module"])].register_forward_hook(lambda m, i, o: acts.__setitem__("a", o))
    scores = model(step["x"])
    a = acts["a"]
    g, = torch.autograd.grad(scores[v["row"], v["class"]], a)
    cam = (g[v["row"]].mean(dim=(1, 2))[:, None, None] * a[v["row"]]).sum(0).clamp_min(0).detach().double().numpy()
    page = np.array(v["map"])
    run, recs = insight_records(run_path, "gradcam")
    rec = [r for r in recs if r.get("step", 0) == v["step"] and r.get("module_", "") == v["module"]
           and r.get("sample", 0) == v["sample"] and r.get("target", "Predicted") == "Predicted"]
    assert rec, "no recorded map for the view"
    recorded = run.values(rec[0]["map"]).double().numpy()
    assert np.array_equal(page, recorded), "page map != recorded map"
    np.testing.assert_allclose(recorded, cam, rtol=1e-4, atol=1e-6, err_msg="recorded map vs reference")
    assert cam.max() > 0, "reference map is all zero: the check would be vacuous"
    print("gradcam: %s step %d sample %d class %d: page == recorded == reference" %
          (v["module"], v["step"], v["sample"], v["class"]))


def same_signs(*ms):
    """Each component's largest-magnitude coordinate made positive, in place."""
    for k in range(2):
        for m in ms:
            if m[np.argmax(np.abs(m[:, k])), k] < 0:
                m[:, k] *= -1


def svd_points(x):
    x = x - x.mean(0)
    u, sig, _ = np.linalg.svd(x, full_matrices=False)
    return u[:, :2] * sig[:2], sig[:2] ** 2 / (sig ** 2).sum()


def table(ref_path, view_path):
    ref = torch.load(ref_path)
    v = view_of(view_path)
    assert v["table"] is True, "not a table's PCA"
    w = ref["tok"].double().numpy()
    want, explained = svd_points(w)
    got = np.array(v["points"])
    assert got.shape == want.shape, (got.shape, want.shape)
    same_signs(want, got)
    np.testing.assert_allclose(got, want, atol=1e-6 * max(1, np.abs(want).max()), err_msg="table PCA points")
    np.testing.assert_allclose(v["explained"], explained, atol=1e-9, err_msg="table explained")
    assert [str(l) for l in v["labels"]] == ref["chars"], ("table labels", v["labels"], ref["chars"])
    print("table: %s, %d rows, explained %s" % (v["module"], len(got), v["explained"]))


def hint(view_path, run_path):
    v = view_of(view_path)
    _, recs = insight_records(run_path, "gradcam")
    has_true = any(r.get("step", 0) == v["step"] and r.get("sample", 0) == v["sample"]
                   and r.get("target", "Predicted") != "Predicted" for r in recs)
    h = v["true_class_hint"]
    if has_true:
        assert h is None, "sample %d has a true-class map at step %d, yet the page says %r" % (v["sample"], v["step"], h)
    else:
        assert h and "--gradcam-true" in h, "no true-class map, and the hint does not say how to record one: %r" % h
    print("hint: step %d sample %d, true-class map %s, hint %s" % (v["step"], v["sample"], has_true, bool(h)))


def pca(view_path, run_path):
    v = view_of(view_path)
    run, recs = insight_records(run_path, "embeddings")
    rows = []
    for r in recs:
        if r.get("module_", "") != v["module"]:
            continue
        samples, positions = r.get("samples", []), r.get("positions", [])
        if r.get("rows"):
            vec = run.values(r["batch_vectors"]).double().numpy()
            by_row = dict(zip(positions, samples))
            rows += [(r.get("step", 0), by_row.get(b, -1), b, vec[k]) for k, b in enumerate(r["rows"])]
        else:
            vec = run.values(r["vectors"]).double().numpy()
            rows += [(r.get("step", 0), s, positions[k] if k < len(positions) else -1, vec[k])
                     for k, s in enumerate(samples)]
    assert [(st, s, b) for st, s, b, _ in rows] == list(zip(v["steps"], v["samples"], v["rows"])), \
        "points are not the records' rows and samples"
    assert v["count"] == len(rows) and v["followed_count"] == sum(s >= 0 for _, s, _, _ in rows)
    want, explained = svd_points(np.stack([x for _, _, _, x in rows]))
    got = np.array(v["points"])
    same_signs(want, got)
    np.testing.assert_allclose(got, want, atol=1e-6 * max(1, np.abs(want).max()), err_msg="PCA points")
    np.testing.assert_allclose(v["explained"], explained, atol=1e-9, err_msg="explained")
    print("pca: %s, %d points (%d followed), explained %s" % (v["module"], len(got), v["followed_count"],
                                                              v["explained"]))


def recorded(view_path, run_path, source):
    v = view_of(view_path)
    run, records = insight_records(run_path, "attention")
    mine = [r for r in records if r.get("step", 0) == v["step"] and r.get("sample", 0) == v["sample"]]
    names = [r["module_"] for r in mine]
    assert names == v["layers"], ("layers", names, v["layers"])
    weights = [run.values(r["weights"]).double().numpy() for r in mine]
    shown = weights[names.index(v["module"])]
    want = shown.mean(0) if v["head"] is None else shown[v["head"]]
    np.testing.assert_allclose(np.array(v["weights"]), want, atol=1e-6, err_msg="shown weights")
    first, last, t = check_rollout(v, names, weights, want.shape[0])
    assert v["source"] == source, ("source", v["source"], source)
    rec = mine[names.index(v["module"])]
    if rec.get("mask", -1) == -1:
        assert v["masked"] is None, v["masked"]
    else:
        mask = run.values(rec["mask"]).numpy()
        assert v["masked"] == int(mask.sum()), ("masked", v["masked"], int(mask.sum()))
        assert v["causal"] == bool((mask == np.triu(np.ones((t, t), bool), 1)).all()), "causal"
    print("recorded: %s %s, layers %s..%s agree (T=%d, %s)" % (v["module"], source, names[first], names[last], t,
                                                                v["origin"]))


def insights(state_path, ref_path, *names):
    st = json.load(open(state_path))
    assert st["insights"] == list(names), (st["insights"], names)
    assert ("Insights" in st["pages"]) == bool(names), st["pages"]
    want = [{"module": m, "kind": "nn.MultiheadAttention"} for m in torch.load(ref_path).get("library_attention", [])]
    assert st["library_attention"] == want, ("library_attention", st["library_attention"], want)
    print("insights: %s; library attention: %s" % (st["insights"], [m["module"] for m in want]))


if __name__ == "__main__":
    {"rollout": rollout, "recorded": recorded, "layer_attention": layer_attention, "gradcam": gradcam, "pca": pca, "table": table, "hint": hint, "insights": insights}[sys.argv[1]](*sys.argv[2:])
