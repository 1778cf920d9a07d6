"""Packaging of tvis for pip (see pyproject.toml).

The Python package lives in recorder/python/tvis; the native module
`_tvis_native` and the C++ `tvis` CLI are built by the project's CMake in
build/pip-<python tag>/ with -DTVIS_PYTHON=<this interpreter>, so the module
links exactly the torch this interpreter imports (its C++ ABI included). The
console script `tvis` (tvis._cli) executes that CLI with this interpreter as
the default Python for `tvis run`.

Without torch in this interpreter (a laptop that only views runs), only the
CLI is built (`tvis open`, `agent`, `target`, `inspect`), `_tvis_native` is a
stub whose import says recording needs torch, and `tvis run` says so too.
The browser viewer (viewer.html, .js, .wasm), when built (build/web or
$TVIS_WEB_DIR), is copied into the package as tvis/web for `tvis open`.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE_ROOT = ROOT / "recorder" / "python"


WEB_FILES = ("viewer.html", "viewer.js", "viewer.wasm")


def has_torch():
    return subprocess.call([sys.executable, "-c", "import torch"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) == 0


def copy_viewer(dest):
    """The built viewer into dest (tvis/web); nothing when it is not built."""
    src = Path(os.environ.get("TVIS_WEB_DIR") or ROOT / "build" / "web")
    if all((src / f).is_file() for f in WEB_FILES):
        dest.mkdir(parents=True, exist_ok=True)
        for f in WEB_FILES:
            shutil.copy2(src / f, dest / f)


class CMakeBuild(build_ext):
    def run(self):
        # build_ext.run clears self.inplace while extensions build; remember
        # whether this build writes beside the sources (--inplace, or an
        # editable install, which setuptools marks with editable_mode).
        self.writes_beside_sources = bool(self.inplace or getattr(self, "editable_mode", False))
        super().run()

    def build_extension(self, ext):
        tag = sysconfig.get_config_var("SOABI") or "py%d%d" % sys.version_info[:2]
        # TVIS_PIP_BUILD_DIR: another build folder (tests installing into a fresh venv).
        build_dir = Path(os.environ.get("TVIS_PIP_BUILD_DIR") or ROOT / "build" / ("pip-" + tag))
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build_dir), *gen,
                               "-DCMAKE_BUILD_TYPE=Release", "-DTVIS_PYTHON_PACKAGE_ONLY=ON",
                               "-DTVIS_PYTHON=" + sys.executable])
        jobs = os.environ.get("TVIS_BUILD_JOBS", "2")
        torch = has_torch()
        targets = ["_tvis_native", "tvis"] if torch else ["tvis"]
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", *targets, "-j", jobs])
        if torch:
            built = sorted((build_dir / "python").glob("_tvis_native*.so"))
            if not built:
                raise RuntimeError("CMake did not build _tvis_native: does %s import torch?" % sys.executable)
            dest = Path(self.get_ext_fullpath(ext.name))
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built[0], dest)
            # the torch it was built for, which tvis/native.py checks before importing it
            shutil.copy2(build_dir / "python" / "_tvis_native.torch", dest.parent / "_tvis_native.torch")
        else:
            ext.sources = [str(ROOT / "recorder" / "python_stub" / "_tvis_native_stub.c")]
            super().build_extension(ext)
        # An editable install writes beside the sources; a regular one only into
        # the wheel (the source tree, and any editable install of it, stay as they are).
        package = PACKAGE_ROOT / "tvis" if self.writes_beside_sources else Path(self.build_lib) / "tvis"
        package.mkdir(parents=True, exist_ok=True)
        copy_viewer(package / "web")
        (package / "_build_info.py").write_text("# written by setup.py; not in git\nTVIS_BIN = %r\n" % str(build_dir / "bin" / "tvis"))


setup(
    name="tvis",
    version="0.1.0",
    description="A step-through debugger for PyTorch training",
    package_dir={"": "recorder/python"},
    packages=find_packages(where="recorder/python"),
    ext_modules=[Extension("_tvis_native", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    entry_points={"console_scripts": ["tvis = tvis._cli:main"]},
    python_requires=">=3.8",
    zip_safe=False,
)
