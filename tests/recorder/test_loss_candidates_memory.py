"""Memory the recorder must not keep alive past its use.

Loss calls whose result is never backpropagated (an evaluation loop run with
grad enabled) were all kept as loss candidates until the next backward, and
with them every batch's autograd graph: memory grew with the loop's length
under `tvis run` only. The recorder now keeps the latest few.
"""
import re

from conftest import SCRIPTS, run_plain, run_tvis, step_lines

_LINE = re.compile(r"^step (\d+) loss (\S+) alive (\d+)$")


def _parse(stdout):
    return [_LINE.match(l).groups() for l in step_lines(stdout)]


def test_unbackpropagated_losses_are_not_kept(tvis, tmp_path):
    script = SCRIPTS / "loss_candidates_eval_loop.py"
    plain = run_plain(script, "--steps", 3, "--evals", 40)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, "--steps", 6, "--evals", 40, steps=3, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    p, r = _parse(plain.stdout), _parse(rec.stdout)
    assert len(p) == 3 and len(r) == 3
    assert [x[:2] for x in r] == [x[:2] for x in p], "losses differ under tvis run"
    assert all(int(x[2]) == 0 for x in p)
    # 80 loss results per step are made; the recorder may hold a bounded few, never all
    alive = [int(x[2]) for x in r]
    assert max(alive) <= 8, "loss results kept alive under tvis run: %s" % alive
