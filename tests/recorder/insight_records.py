"""Insight records of a run read back for the tests (InsightBatch chunks).

``insights(run)`` -> {"attention": [...], "embeddings": [...], "tables": [...],
"library_attention": [...], "gradcam": [...]}: every record of every insights
chunk in file order, as plain dicts with the schema's field names (FlatBuffers'
``module_`` renamed ``module``) and the defaults FlatBuffers leaves out put back.
"""
import json

_DEFAULTS = {
    "attention": {"step": 0, "module": "", "event": 0, "sample": 0, "shape": [], "weights": 0, "tokens": [],
                  "token_labels": [], "source": "Captured", "kind": "", "mask": -1, "full": [], "dropout": 0.0},
    "embeddings": {"step": 0, "module": "", "samples": [], "labels": [], "vectors": 0, "positions": [], "rows": [],
                   "row_labels": [], "batch_vectors": 0, "batch_size": 0},
    "tables": {"module": "", "rows": 0, "labels": []},
    "library_attention": {"module": "", "kind": ""},
    "gradcam": {"step": 0, "module": "", "sample": 0, "class_index": 0, "map": 0},
}


def insights(run):
    out = {k: [] for k in _DEFAULTS}
    for ordinal, kind, *_ in run.chunks:
        if kind != "insights":
            continue
        body = json.loads(run.file.chunk_json(ordinal)).get("body", {})
        for key, records in body.items():
            for r in records:
                if "module_" in r:
                    r["module"] = r.pop("module_")
                for k, v in _DEFAULTS.get(key, {}).items():
                    r.setdefault(k, v)
                out.setdefault(key, []).append(r)
    return out


# The tensor each insight record points at, and the role that tensor must have.
_TENSOR_ROLES = {"attention": ("weights", "Attention"), "gradcam": ("map", "GradCam"),
                 "embeddings": ("vectors", "Embedding"), "tables": ("rows", "EmbeddingTable")}


def assert_tensor_roles(run, records):
    """Every tensor an insight record points at exists and has its insight's role
    (an embedding record's batch_vectors too, where it has rows)."""
    for key, (field, role) in _TENSOR_ROLES.items():
        for r in records.get(key, []):
            for f in [field] + (["batch_vectors"] if key == "embeddings" and r["rows"] else []):
                t = run.tensors.get(r[f])
                assert t is not None, (key, f, r)
                assert t["role"] == role, (key, r[f], t["role"])
