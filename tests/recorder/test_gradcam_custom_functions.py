"""Grad-CAM and custom autograd.Functions: its extra gradient passes run their
backward on the user's graph before the user's own backward, so a backward
that frees its ctx state (``del ctx.scale``) or draws from the random stream
must find ctx and the stream as the forward left them, or the user's backward
raises or trains differently under `tvis run` only.
"""
from conftest import SCRIPTS, inspect_json, record_matching_plain, step_lines


def test_custom_function_ctx_is_as_the_forward_left_it(tvis, tmp_path):
    script = SCRIPTS / "gradcam_ctx_freeing_function.py"
    path, out, _ = record_matching_plain(tvis, script, 2, tmp_path / "runs")
    assert all(l.endswith("ctx calls 1") for l in step_lines(out))
    js = inspect_json(tvis, path)
    assert any("custom autograd.Function __main__.Scale;" in n for n in js["notices"]), js["notices"]
    assert not any("gradcam_pass_failed" in n or "Grad-CAM skipped" in n for n in js["notices"]), js["notices"]


def test_custom_backward_drawing_noise_leaves_the_random_stream(tvis, tmp_path):
    """A custom backward that draws gradient noise must not advance the global
    torch stream once more per Grad-CAM pass (later Dropout masks, losses and
    weights would differ under `tvis run`)."""
    script = SCRIPTS / "gradcam_noisy_backward.py"
    path, out, _ = record_matching_plain(tvis, script, 3, tmp_path / "runs")
    assert len(step_lines(out)) == 3
    js = inspect_json(tvis, path)
    assert any("custom autograd.Function __main__.GradNoise;" in n for n in js["notices"]), js["notices"]
