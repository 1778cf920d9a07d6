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


STEPS = 3
BATCH = 8


class _Reference:
    """The script's model and optimizer (scripts/resnet18.py), trained in this
    process on the batches the run recorded. Forward hooks keep each module's
    output and hand a clone downstream, so no kept output is modified in place."""

    def __init__(self):
        torch.manual_seed(0)
        self.model = torchvision.models.resnet18(num_classes=10)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
        self.names = {id(m): (n or "ResNet") for n, m in self.model.named_modules()}
        self.kept = collections.defaultdict(list)
        for m in self.model.modules():
            m.register_forward_hook(self._keep)

    def _keep(self, module, inputs, output):
        self.kept[self.names[id(module)]].append(output)
        return output.clone()

    def step(self, x, y):
        """One training step on (x, y). Returns dL/d(output) per (module, call
        index) and dL/dp per parameter name, from one torch.autograd.grad of
        the loss, taken before the step's own backward and update."""
        self.kept.clear()
        self.opt.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        flat = [(n, i, t) for n, ts in self.kept.items() for i, t in enumerate(ts)]
        params = list(self.model.named_parameters())
        grads = torch.autograd.grad(loss, [t for _, _, t in flat] + [p for _, p in params],
                                    allow_unused=True, retain_graph=True)
        outs = {(n, i): g for (n, i, _), g in zip(flat, grads)}
        param_grads = {n: g for (n, _), g in zip(params, grads[len(flat):])}
        loss.backward()
        self.opt.step()
        return outs, param_grads


def _kept_rows(run, step):
    """How many leading rows a batch-sized activation of `step` keeps: up to the last followed sample's."""
    return max(x["batch_position"] for c in run.samples if c["step"] == step for x in c["samples"]) + 1


def _check_grad_outputs(run, events, ref):
    seen = collections.Counter()
    checked = 0
    for e in events:
        i = seen[e["name"]]
        seen[e["name"]] += 1
        g_ref = ref.get((e["name"], i))
        if g_ref is None:
            continue
        where = "%s call %d at step %d" % (e["name"], i, e["step"])
        assert len(e["grad_outputs"]) == 1, "dL/d(output) slots of %s: %s" % (where, e["grad_outputs"])
        g = run.values(e["grad_outputs"][0])
        # a batch-sized gradient keeps the rows up to the last followed sample's; its statistics
        # (grad_norm, sample_grad_norms) are of the whole batch
        kept = g_ref
        if g.shape != g_ref.shape and g.shape[1:] == g_ref.shape[1:] and g.shape[0] == _kept_rows(run, e["step"]):
            kept = g_ref[: g.shape[0]]
        assert g.shape == kept.shape, where
        assert torch.allclose(g, kept, rtol=1e-4, atol=1e-7), "dL/d(output) of " + where
        assert abs(e["grad_norm"] - g_ref.double().norm().item()) <= 1e-4 * max(1.0, g_ref.norm().item()), where
        per = g_ref.reshape(BATCH, -1).double().norm(dim=1)[:4]
        assert torch.allclose(torch.tensor(e["sample_grad_norms"], dtype=torch.float64), per, rtol=1e-4, atol=1e-9), where
        checked += 1
    return checked


def _check_param_grads(run, opt_step, ref_grads):
    assert {p["name"] for p in opt_step["params"]} == set(ref_grads)
    for p in opt_step["params"]:
        g = run.values(p["grad"])
        assert g is not None, "no gradient kept for %s at step %d" % (p["name"], opt_step["step"])
        g_ref = ref_grads[p["name"]]
        if g.shape != g_ref.shape:  # leading rows kept
            g_ref = g_ref[: g.shape[0]]
        assert torch.allclose(g, g_ref, rtol=1e-4, atol=1e-7), "dL/d%s at step %d" % (p["name"], opt_step["step"])


def test_resnet_grad_outputs_match_autograd(tvis, tmp_path):
    """Every recorded step: each module call's dL/d(output) (every slot) and
    every parameter's gradient equal torch.autograd.grad of the same loss in
    an independent replay of the training."""
    rec = run_tvis(tvis, SCRIPTS / "resnet18.py", "--steps", STEPS + 2, "--batch", BATCH, steps=STEPS, out=tmp_path)
    assert rec.returncode == 0, rec.stderr
    run = load_run(run_file_of(rec.stdout))
    reference = _Reference()
    opt_steps = {o["step"]: o for o in run.optimizer_steps}
    assert sorted(opt_steps) == list(range(STEPS))
    losses = {l["step"]: l for l in run.losses}
    ref = {}
    for k in range(STEPS):
        events = sorted((e for e in run.module_events() if e["step"] == k), key=lambda e: e["id"])
        root = next(e for e in events if e["name"] == "ResNet")
        x = run.values(root["inputs"][0])
        y = run.values(losses[k]["targets"])
        assert x.shape == (BATCH, 3, 32, 32) and y.shape == (BATCH,)
        w = {p["name"]: run.values(p["weight"]) for p in opt_steps[k]["params"]}
        assert torch.equal(w["conv1.weight"], reference.model.conv1.weight.detach()), \
            "recorded weights before step %d are not the replay's" % k
        ref, ref_params = reference.step(x, y)
        step_checked = _check_grad_outputs(run, events, ref)
        assert step_checked >= 60, "step %d: only %d module calls checked" % (k, step_checked)
        _check_param_grads(run, opt_steps[k], ref_params)
    names = {n for n, _ in ref}
    assert {"bn1", "relu", "layer1.0.bn2", "layer4.1.relu"} <= names
