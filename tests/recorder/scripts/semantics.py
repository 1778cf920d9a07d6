"""Reports what a script sees of the interpreter, then exits as told."""
import json
import os
import pickle
import signal
import sys
import time

import fidelity_util  # sibling import through sys.path[0]


class Point:
    def __init__(self, x):
        self.x = x


def main():
    info = {
        "name": __name__,
        "argv": sys.argv,
        "path0": sys.path[0],
        "file": __file__,
        "pickle": pickle.loads(pickle.dumps(Point(7))).x,
        "sibling": fidelity_util.__name__,
        "tvis_loaded": "tvis" in sys.modules,  # True only under tvis run
        "pythonpath": os.environ.get("PYTHONPATH", ""),
        "prefix": sys.prefix,
    }
    print(json.dumps(info), flush=True)
    if "--exit" in sys.argv:
        sys.exit(int(sys.argv[sys.argv.index("--exit") + 1]))
    if "--raise" in sys.argv:
        raise ValueError("boom from the script")
    if "--loop" in sys.argv:
        # Some module calls, then "ready" and a wait in the script's own code:
        # a signal sent after "ready" lands in time.sleep, never inside tvis.
        import torch
        lin = torch.nn.Linear(2, 2)
        for _ in range(3):
            lin(torch.zeros(1, 2))
        print("ready", flush=True)
        while True:
            time.sleep(60)
    print("done", flush=True)


if __name__ == "__main__":
    main()
