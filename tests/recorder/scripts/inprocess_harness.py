"""In-process fidelity: runs SCRIPT twice in this interpreter, first plain,
then with the tvis recorder attached, and prints both outputs as JSON.

    python inprocess_harness.py RUN_FILE SCRIPT ARGS...
(the tvis package and _tvis_native must be importable)
"""
import contextlib
import io
import json
import os
import runpy
import sys


def run(script, args):
    sys.argv = [script] + args
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(script, run_name="__main__")
    return out.getvalue().splitlines()


def main():
    run_file, script, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    plain = run(script, args)

    import _tvis_native
    from tvis.session.session import Session
    session = Session(_tvis_native, run_file, {"steps": 1000}, script)
    session.install()
    recorded = run(script, args)
    session.finalize()
    print(json.dumps({"plain": plain, "recorded": recorded, "steps": session.steps_done}))


if __name__ == "__main__":
    main()
