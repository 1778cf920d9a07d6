"""Review findings: Grad-CAM's extra gradient passes run the backward of custom
autograd.Functions on the user's graph before the user's own backward. One
that frees its ctx state (``del ctx.scale``) made the user's backward raise
AttributeError under `tvis run` only. The passes now put ctx attributes back.
"""
from conftest import SCRIPTS, inspect_json, run_file_of, run_plain, run_tvis, step_lines


def test_custom_function_ctx_is_as_the_forward_left_it(tvis, tmp_path):
    script = SCRIPTS / "review_ctx_freeing_function.py"
    plain = run_plain(script, "--steps", 2)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, "--steps", 4, steps=2, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout)
    assert all(l.endswith("ctx calls 1") for l in step_lines(rec.stdout))
    js = inspect_json(tvis, run_file_of(rec.stdout))
    assert any("custom autograd.Function __main__.Scale;" in n for n in js["notices"]), js["notices"]
    assert not any("gradcam_pass_failed" in n or "Grad-CAM skipped" in n for n in js["notices"]), js["notices"]


def test_custom_backward_drawing_noise_leaves_the_random_stream(tvis, tmp_path):
    """Review finding: a custom backward that draws gradient noise advanced the
    global torch stream once more per Grad-CAM pass: later Dropout masks,
    losses and weights differed under `tvis run`."""
    script = SCRIPTS / "review_noisy_backward.py"
    plain = run_plain(script, "--steps", 3)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, "--steps", 5, steps=3, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    assert len(step_lines(plain.stdout)) == 3
    assert step_lines(rec.stdout) == step_lines(plain.stdout)
    js = inspect_json(tvis, run_file_of(rec.stdout))
    assert any("custom autograd.Function __main__.GradNoise;" in n for n in js["notices"]), js["notices"]
