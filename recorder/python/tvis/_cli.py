"""The `tvis` console script of a pip install: runs the C++ CLI built by
setup.py, with this interpreter (the environment pip installed into) as the
default Python of `tvis run` (TVIS_PYTHON; `--python` still wins) and the
installed package and native module as what `tvis run` puts on PYTHONPATH."""
import os
import sys


def main():
    try:
        from tvis._build_info import TVIS_BIN
    except ImportError:
        sys.stderr.write("tvis: this install has no built CLI (reinstall with pip install -e .)\n")
        return 2
    import importlib.util
    native = importlib.util.find_spec("_tvis_native")
    env = dict(os.environ)
    env.setdefault("TVIS_PYTHON", sys.executable)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env.setdefault("TVIS_PYTHON_PACKAGE_DIR", here)
    if native is not None and native.origin:
        env.setdefault("TVIS_NATIVE_DIR", os.path.dirname(native.origin))
    os.execve(TVIS_BIN, [TVIS_BIN] + sys.argv[1:], env)


if __name__ == "__main__":
    sys.exit(main())
