"""The Hugging Face Trainer launched on 2 ranks (gloo, CPU) by `tvis run
--nproc-per-node 2`: every rank recorded, and both rank files diagnosed
together. Needs transformers (build/venv), so it runs on the newest torch only."""
import json
import os
import re
import subprocess
from pathlib import Path

from recorder_conftest import inspect_json, load_run


def recorded_files(stdout):
    return sorted(set(re.findall(r"tvis run: recorded (\S+)$", stdout, re.M)))


def test_trainer_ddp_with_unused_parameters_records_every_step(tvis, tmp_path):
    """The Hugging Face Trainer on 2 ranks with ddp_find_unused_parameters=True,
    a module its forward never calls and a head whose output no loss uses:
    autograd hands that head's parameter hooks None, and the all-reduce probe
    records the others (it once stopped the recording at step 0 with
    "'NoneType' object has no attribute 'numel'"). Every rank records its 3
    steps with no failure notice, both rank files are diagnosed together, and
    the one thing said is the truth: the optimizer holds the 4 parameters of
    the two unused modules and they never get a gradient."""
    script = Path(__file__).parent / "scripts" / "ddp_trainer_unused.py"
    p = subprocess.run([tvis, "run", "--nproc-per-node", "2", "--steps", "3", "--out", str(tmp_path / "runs"),
                        str(script), "--steps", "8"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    files = recorded_files(p.stdout)
    assert sorted(os.path.basename(f) for f in files) == ["rank1.tvis", "run.tvis"], p.stdout[-2000:]
    folder = os.path.dirname(files[0])
    info = inspect_json(tvis, folder)
    assert [(r["rank"], r["steps"], r["complete"]) for r in info["ranks"]] == [(0, 3, True), (1, 3, True)], info
    for f in files:
        notices = [n for n in load_run(f).meta.get("notices", []) if n.get("code") == "recorder_error"]
        assert notices == [], notices
    d = subprocess.run([tvis, "diagnose", "--json", folder], capture_output=True, text=True, timeout=120)
    assert d.returncode == 0, (d.returncode, d.stderr, d.stdout[-2000:])
    report = json.loads(d.stdout)
    assert report["judged"] and len(report["ranks"]) == 1, report
    alarms = [(f["kind"], f["param"]) for f in report["findings"] if f["severity"] != "note"]
    assert [kind for kind, _ in alarms] == ["param_without_grad"], alarms
    f = next(f for f in report["findings"] if f["kind"] == "param_without_grad")
    assert f["evidence"]["parameters"] == 4 and "unused.weight" in f["message"] and "aux.weight" in f["message"], f
