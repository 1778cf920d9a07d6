"""tools/device/record_cost.py --cpu: the GPU cost script runs end to end on
the CPU (small sizes), so that it cannot rot between device loans. Its checks
(both runs finish, losses bit for bit, 3 complete steps) must pass and its
table must hold a row per model with a ratio, bytes per step, the syncs and
device reads recording added (none on the CPU) and the copy overlap."""
import re
import subprocess
from pathlib import Path

from conftest import PYTHON, ROOT


def test_record_cost_runs_on_the_cpu(tvis, build, tmp_path):
    p = subprocess.run([PYTHON, str(ROOT / "tools" / "device" / "record_cost.py"), "--cpu", "--tvis", tvis,
                        "--build", str(build), "--python", PYTHON, "--work", str(tmp_path)],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "FAIL" not in p.stdout
    for model in ("resnet50", "gpt2"):
        assert "PASS %s losses bit for bit (3 steps)" % model in p.stdout
        assert "PASS %s run file holds 3 complete steps" % model in p.stdout
        assert "PASS %s run records its device reads per step" % model in p.stdout
        # on the CPU: no device synchronization, no device read, no copy to overlap
        row = re.search(r"^\| %s \| ([0-9.]+) ms \| ([0-9.]+) ms \| ([0-9.]+)x \| 0 MiB \| \+0 MiB \| ([0-9.]+) "
                        r"\| 0\.0 \| 0 \| - \| <= ([0-9.]+)x \|$" % model, p.stdout, re.M)
        assert row, p.stdout
        assert float(row.group(3)) > 0 and float(row.group(4)) > 0
        assert (Path(tmp_path) / ("%s_trace.json" % model)).stat().st_size > 0  # the profiled step's trace
    assert (Path(tmp_path) / "logs").is_dir()
