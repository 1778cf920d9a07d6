"""Checks Replay's data phase (state().view.data) against the scripts' own data.

    check_data.py pictures STATE.json   followed_activation.py's run, Replay at a data stop:
        the batch is drawn as images of the model's input shape; the
        followed sample is the dataset index its step and row say (no
        shuffling); its label is the dataset's class name; the stages are
        the script's own transforms (each repr exactly), and each stage's
        values (shape, min, max, mean) equal the script's own pipeline run
        here on that item, step by step
    check_data.py tokens STATE.json     token_batches.py's run: the batch is drawn as token ids, its
        shape and first row are the script's own rows for that step

Exit 0 on agreement; otherwise a message naming the first difference.
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def close(got, want, what):
    assert got is not None, "%s: no values shown" % what
    assert list(got["shape"]) == list(want.shape), (what, got["shape"], list(want.shape))
    w = np.asarray(want, dtype=np.float64)
    for key, ref in (("min", w.min()), ("max", w.max()), ("mean", w.mean())):
        assert abs(got[key] - ref) <= 1e-6 * max(1.0, abs(ref)), (what, key, got[key], ref)


def pictures(state_path):
    from followed_activation import Pictures
    from PIL import Image
    s = json.load(open(state_path))
    v = s["view"]
    assert s["errors"] == [] and v["phase"] == "data", (s["errors"], v["phase"])
    d = v["data"]
    batch, smp = d["batch"], d["sample"]
    assert batch["drawn_as"] == "images" and batch["shape"][1:] == [3, 16, 16], batch
    assert batch["followed_row"] == smp["batch_row"], (batch["followed_row"], smp["batch_row"])
    data = Pictures()
    index = v["step"] * 8 + smp["batch_row"]  # batch 8, no shuffling
    assert smp["dataset_index"] == index, (smp["dataset_index"], index)
    assert smp["label"] == data.classes[data.labels[index]], (smp["label"], data.labels[index])
    steps = data.transform.transforms
    assert [st["name"] for st in smp["stages"]] == [repr(t) for t in steps], \
        ([st["name"] for st in smp["stages"]], [repr(t) for t in steps])
    assert [st["class"] for st in smp["stages"]] == [type(t).__name__ for t in steps]
    x = Image.fromarray(data.images[index])
    close(smp["item_values"], np.asarray(x), "item")
    for st, t in zip(smp["stages"], steps):
        x = t(x)
        want = np.asarray(x) if isinstance(x, Image.Image) else x.numpy()
        assert st["output_kind"] == ("PILImage" if isinstance(x, Image.Image) else "Tensor"), (st["name"], st["output_kind"])
        close(st["values"], want, st["name"])
    print("data phase: step %d sample %d (dataset index %d) through %s agrees"
          % (v["step"], smp["id"], index, " -> ".join(st["class"] for st in smp["stages"])))


def tokens(state_path):
    from token_batches import BATCH, TOKENS
    s = json.load(open(state_path))
    v = s["view"]
    assert s["errors"] == [] and v["phase"] == "data", (s["errors"], v["phase"])
    batch = v["data"]["batch"]
    rows = TOKENS[v["step"] * BATCH:(v["step"] + 1) * BATCH, :-1]
    assert batch["drawn_as"] == "token ids" and batch["dtype"] == "int64", batch
    assert batch["shape"] == list(rows.shape), (batch["shape"], list(rows.shape))
    assert batch["first_row"] == rows[0].tolist(), (batch["first_row"], rows[0].tolist())
    assert batch["rows_drawn"] == BATCH, batch
    print("data phase: step %d's token batch %s agrees" % (v["step"], batch["shape"]))


if __name__ == "__main__":
    {"pictures": pictures, "tokens": tokens}[sys.argv[1]](*sys.argv[2:])
