"""Records tests/recorder/scripts/killed_mid_run.py under `tvis run --steps 3`
and SIGKILLs its whole process group in its third step, once the writer
thread has put the first two steps on disk (`tvis inspect` reads them back):
a run that died with exactly 2 steps recorded. Used by test_killed_run.py and,
as a script, by tests/e2e/test_pages.sh:

    python3 killed_recording.py TVIS OUT_DIR   # prints the run file's path
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "scripts" / "killed_mid_run.py"


def recorded_steps(tvis, run_file):
    p = subprocess.run([tvis, "inspect", "--json", str(run_file)], capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout).get("steps", 0) if p.returncode == 0 else 0


def record_and_kill(tvis, out):
    """Returns the run file of the killed recording under `out`."""
    p = subprocess.Popen([tvis, "run", "--steps", "3", "--out", str(out), str(SCRIPT), "600"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        lines = []
        for line in p.stdout:
            lines.append(line)
            if line.startswith("waiting"):
                break
        assert lines and lines[-1].startswith("waiting"), "script ended early:\n%s%s" % ("".join(lines), p.stderr.read())
        runs = list(Path(out).glob("*/run.tvis"))
        assert len(runs) == 1, runs
        # The writer thread compresses and writes asynchronously.
        deadline = time.time() + 60
        while recorded_steps(tvis, runs[0]) < 2:
            assert time.time() < deadline, "the second step never reached the file"
            time.sleep(0.2)
        assert p.poll() is None, "the script must still be running when it is killed"
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=60)
    return runs[0]


if __name__ == "__main__":
    print(record_and_kill(sys.argv[1], sys.argv[2]))
