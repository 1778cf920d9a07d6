"""dL/d(output) recorded per module is right, also under in-place ops.

torchvision's ResNet-18 modifies module outputs in place (ReLU(inplace=True),
`out += identity`). The reference here is computed independently in this
process: the same model and batch, forward hooks that keep each module's
output and hand a clone downstream (so no kept output is ever modified in
place), and torch.autograd.grad of the loss with respect to the kept outputs.
"""
import collections

import torch
import torch.nn.functional as F
import torchvision

from conftest import SCRIPTS, load_run, run_file_of, run_tvis


def _reference_grads(x, y):
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    names = {id(m): (n or "ResNet") for n, m in model.named_modules()}
    kept = collections.defaultdict(list)

    def hook(module, inputs, output):
        kept[names[id(module)]].append(output)
        return output.clone()

    for m in model.modules():
        m.register_forward_hook(hook)
    loss = F.cross_entropy(model(x), y)
    flat = [(n, i, t) for n, ts in kept.items() for i, t in enumerate(ts)]
    grads = torch.autograd.grad(loss, [t for _, _, t in flat], allow_unused=True)
    return {(n, i): g for (n, i, _), g in zip(flat, grads)}, model


def test_resnet_grad_outputs_match_autograd(tvis, tmp_path):
    rec = run_tvis(tvis, SCRIPTS / "resnet18.py", "--steps", 3, "--batch", 8, steps=1, out=tmp_path)
    assert rec.returncode == 0, rec.stderr
    run = load_run(run_file_of(rec.stdout))
    events = sorted((e for e in run.module_events() if e["step"] == 0), key=lambda e: e["id"])
    root = next(e for e in events if e["name"] == "ResNet")
    x = run.values(root["inputs"][0])
    y = run.values(run.losses[0]["targets"])
    assert x.shape == (8, 3, 32, 32) and y.shape == (8,)
    ref, model = _reference_grads(x, y)
    w0 = {p["name"]: run.values(p["weight"]) for p in run.optimizer_steps[0]["params"]}
    assert torch.equal(w0["conv1.weight"], model.conv1.weight.detach()), "recorded weights are not the script's"

    seen = collections.Counter()
    checked = 0
    for e in events:
        i = seen[e["name"]]
        seen[e["name"]] += 1
        g_ref = ref.get((e["name"], i))
        if g_ref is None:
            continue
        assert e["grad_outputs"], "no dL/d(output) for %s call %d" % (e["name"], i)
        g = run.values(e["grad_outputs"][0])
        assert g.shape == g_ref.shape, e["name"]
        assert torch.allclose(g, g_ref, rtol=1e-4, atol=1e-7), "dL/d(output) of %s call %d" % (e["name"], i)
        assert abs(e["grad_norm"] - g_ref.double().norm().item()) <= 1e-4 * max(1.0, g_ref.norm().item())
        per = g_ref.reshape(8, -1).double().norm(dim=1)[:4]
        assert torch.allclose(torch.tensor(e["sample_grad_norms"], dtype=torch.float64), per, rtol=1e-4, atol=1e-9)
        checked += 1
    names = {n for n, _ in ref}
    assert checked >= 60, "only %d module calls checked" % checked
    assert {"bn1", "relu", "layer1.0.bn2", "layer4.1.relu"} <= names
