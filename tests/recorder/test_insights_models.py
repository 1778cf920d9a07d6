"""Issue 4's captures together on real torchvision models, with training
bit-identical to the plain script: ResNet-18 behind a 2-worker DataLoader with
random transforms (pipeline, Grad-CAM per conv layer, embeddings at each
top-level module, no attention and no library-attention notice), and a
VisionTransformer (Grad-CAM on its patch convolution, embeddings, library
attention named with its path)."""
import torch
import torchvision

from conftest import SCRIPTS, inspect_json, load_run, record_matching_plain
from insight_records import assert_tensor_roles, insights

STEPS = 2


def _record(tvis, tmp_path, script):
    path, _, _ = record_matching_plain(tvis, SCRIPTS / script, STEPS, tmp_path)  # losses, weight digests
    run = load_run(path)
    records = insights(run)
    assert_tensor_roles(run, records)
    return inspect_json(tvis, path), run, records


def test_resnet18_behind_a_worker_pipeline(tvis, tmp_path):
    info, run, records = _record(tvis, tmp_path, "resnet18_loader.py")
    cap = info["captured"]
    assert cap["samples"] == [0, 1, 2, 3]
    assert cap["pipeline"]["transforms"][:4] == ["RandomRotation", "RandomHorizontalFlip", "ToTensor", "Normalize"]
    assert any(n.startswith("workers_in_main") or "main process" in n for n in info["notices"]), info["notices"]
    convs = [n for n, m in torchvision.models.resnet18().named_modules() if isinstance(m, torch.nn.Conv2d)]
    assert len(convs) == 20 and set(convs) <= set(cap["gradcam"]), cap["gradcam"]
    assert cap["embeddings"] == ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4",
                                 "avgpool", "fc"]
    assert cap["attention"] == [] and cap["library_attention"] == []
    assert not any("attention" in n for n in info["notices"]), info["notices"]
    # per step: a predicted-class map for every followed sample of the last conv (a true-class record only
    # where the class is the same: the default leaves misclassified samples' true class out, with a notice)
    for step in range(STEPS):
        maps = [g for g in records["gradcam"] if g["step"] == step and g["module"] == "layer4.1.conv2"]
        assert sorted(g["sample"] for g in maps if g.get("target", "Predicted") == "Predicted") == [0, 1, 2, 3]
        predicted = {g["sample"]: g for g in maps if g.get("target", "Predicted") == "Predicted"}
        for g in maps:
            if g.get("target") == "True":
                assert (g["class_index"], g["map"]) == (predicted[g["sample"]]["class_index"],
                                                        predicted[g["sample"]]["map"])
        for g in maps:
            m = run.values(g["map"])
            assert m.dim() == 2 and bool(torch.isfinite(m).all()) and float(m.min()) >= 0.0


def test_vision_transformer(tvis, tmp_path):
    info, run, records = _record(tvis, tmp_path, "attn_vit.py")
    cap = info["captured"]
    assert cap["gradcam"] == ["conv_proj"]
    assert cap["embeddings"] == ["conv_proj", "encoder", "heads"]
    assert [a["module"] for a in cap["attention"]] == [
        "encoder.layers.encoder_layer_0.self_attention", "encoder.layers.encoder_layer_1.self_attention"]
    assert all(a["kind"] == "nn.MultiheadAttention" for a in cap["attention"])
    assert cap["library_attention"] == [] and not any("attention" in n for n in info["notices"])
