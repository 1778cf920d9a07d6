"""Callables tvis patches look like PyTorch's own to user code (name,
qualified name, module, doc, signature), as without tvis.

Checked among others: Tensor.register_hook / retain_grad,
saved_tensors_hooks.__enter__, Function._register_hook (Grad-CAM's hook
guard) and DataLoader._get_iterator (pipeline capture), which once reported
tvis's module and their own parameter names (`tensor`, `ctx`, `loader`).
"""
from conftest import SCRIPTS, run_plain, run_tvis, step_lines


def test_patched_callables_introspect_as_torch(tvis, tmp_path):
    script = SCRIPTS / "patched_callables_introspection.py"
    plain = run_plain(script, "--steps", 2)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, "--steps", 4, steps=2, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    p, r = step_lines(plain.stdout), step_lines(rec.stdout)
    assert len(p) == 2 * 15
    diff = [(a, b) for a, b in zip(p, r) if a != b]
    assert not diff and len(r) == len(p), "differs under tvis run:\n" + "\n".join(
        "plain: %s\ntvis:  %s" % d for d in diff)
