"""The `tvis` console script of a pip install: runs the C++ CLI built by
setup.py, with this interpreter (the environment pip installed into) as the
default Python of `tvis run` (TVIS_PYTHON; `--python` still wins) and the
installed package and native module as what `tvis run` puts on PYTHONPATH.
The viewer files installed with the package (tvis/web) are what `tvis open`
serves. Installed without torch, `tvis run` says that recording needs it.
`python -m tvis ...` (tvis/__main__.py) is the same command, which is how
`torchrun -m tvis run train.py` starts one recorded rank per process."""
import os
import sys


def main():
    TVIS_BIN = os.environ.get("TVIS_BIN")  # a source build's CLI (tests, `python -m tvis` from a checkout)
    if not TVIS_BIN:
        try:
            from tvis._build_info import TVIS_BIN
        except ImportError:
            sys.stderr.write("tvis: this install has no built CLI (reinstall with pip install -e ., "
                             "or set TVIS_BIN to a built tvis)\n")
            return 2
    import importlib.util
    if sys.argv[1:2] == ["run"] and importlib.util.find_spec("torch") is None:
        sys.stderr.write("tvis run: recording needs torch, and this environment (%s) has none: install torch, "
                         "then reinstall tvis (pip install -e .); viewing works without it (tvis open, tvis inspect)\n"
                         % sys.executable)
        return 2
    native = importlib.util.find_spec("_tvis_native")
    env = dict(os.environ)
    env.setdefault("TVIS_PYTHON", sys.executable)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env.setdefault("TVIS_PYTHON_PACKAGE_DIR", here)
    web = os.path.join(os.path.dirname(os.path.abspath(__file__)), "web")
    if os.path.isfile(os.path.join(web, "viewer.html")):
        env.setdefault("TVIS_WEB_DIR", web)
    if native is not None and native.origin:
        env.setdefault("TVIS_NATIVE_DIR", os.path.dirname(native.origin))
    os.execve(TVIS_BIN, [TVIS_BIN] + sys.argv[1:], env)


if __name__ == "__main__":
    sys.exit(main())
