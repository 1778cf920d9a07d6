"""TorchScript code keeps compiling under tvis: scripted functions that call a
patched loss function compile the original and train bit-identically."""
from conftest import SCRIPTS, inspect_json, run_file_of, run_plain, run_tvis, step_lines


def test_scripted_function_calling_a_patched_loss(tvis, tmp_path):
    script = SCRIPTS / "jit_loss.py"
    plain = run_plain(script)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, steps=2, out=tmp_path)
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout)[:2]
    info = inspect_json(tvis, run_file_of(rec.stdout))
    assert info["steps"] == 2
    assert [repr(v) for v in info["losses"]] == [l.split()[-1] for l in step_lines(plain.stdout)[:2]]
