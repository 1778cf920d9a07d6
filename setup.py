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

Build isolation (pip's default): pip runs this file with the interpreter of
the environment it installs into, but hides that environment's packages
(a PYTHONPATH entry under pip-build-env-*, PYTHONNOUSERSITE=1). Torch lives
there, so the probe for torch and CMake (which asks TVIS_PYTHON for torch's
paths) run without that hiding: the recorder is built against the torch the
environment has, and setuptools alone comes from the package index.

TVIS_WHEEL=laptop (tools/wheel): a wheel for viewing only, whatever
the interpreter has: the CLI and the viewer inside the package (tvis/bin,
tvis/web), no Python extension, tagged py3-none-<platform> so one wheel
serves every Python 3.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Distribution, Extension, find_packages, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
PACKAGE_ROOT = ROOT / "recorder" / "python"


WEB_FILES = ("viewer.html", "viewer.js", "viewer.wasm")


LAPTOP_WHEEL = os.environ.get("TVIS_WHEEL") == "laptop"


def target_environment():
    """os.environ without pip's build isolation: the variables under which
    sys.executable imports what the environment being installed into has."""
    env = dict(os.environ)
    kept = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and "pip-build-env-" not in p]
    if kept != [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]:
        env.pop("PYTHONNOUSERSITE", None)  # set by pip together with that entry
    if kept:
        env["PYTHONPATH"] = os.pathsep.join(kept)
    else:
        env.pop("PYTHONPATH", None)
    return env


def has_torch():
    return subprocess.call([sys.executable, "-c", "import torch"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=target_environment()) == 0


def cmake_build(build_dir, python, targets):
    """Configures build_dir for the Python package and builds targets."""
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    env = target_environment()
    subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build_dir), *gen,
                           "-DCMAKE_BUILD_TYPE=" + os.environ.get("TVIS_CMAKE_BUILD_TYPE", "Release"),
                           "-DTVIS_PYTHON_PACKAGE_ONLY=ON",
                           "-DTVIS_PYTHON=" + python], env=env)
    jobs = os.environ.get("TVIS_BUILD_JOBS", "2")
    subprocess.check_call(["cmake", "--build", str(build_dir), "--target", *targets, "-j", jobs], env=env)


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
        torch = has_torch()
        cmake_build(build_dir, sys.executable, ["_tvis_native", "tvis"] if torch else ["tvis"])
        if torch:
            built = sorted((build_dir / "python").glob("_tvis_native*.so"))
            if not built:
                raise RuntimeError("CMake did not build _tvis_native: does %s import torch?" % sys.executable)
            dest = Path(self.get_ext_fullpath(ext.name))
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built[0], dest)
            # the torch it was built for, which tvis/native.py checks before importing it; an
            # editable install's module is copied beside the sources by setuptools afterwards
            # (build_ext's inplace copy), which does not know of this file
            # and _tvis_schema.py / _tvis_records.py, the schema's enums, defaults and record
            # constructors generated from recording.fbs, which tvis/native.py imports from
            # beside the module it loaded
            for folder in {dest.parent, PACKAGE_ROOT} if self.writes_beside_sources else {dest.parent}:
                for generated in ("_tvis_native.torch", "_tvis_schema.py", "_tvis_records.py"):
                    shutil.copy2(build_dir / "python" / generated, folder / generated)
        else:
            ext.sources = [str(ROOT / "recorder" / "python_stub" / "_tvis_native_stub.c")]
            super().build_extension(ext)
        # An editable install writes beside the sources; a regular one only into
        # the wheel (the source tree, and any editable install of it, stay as they are).
        package = PACKAGE_ROOT / "tvis" if self.writes_beside_sources else Path(self.build_lib) / "tvis"
        package.mkdir(parents=True, exist_ok=True)
        copy_viewer(package / "web")
        (package / "_build_info.py").write_text("# written by setup.py; not in git\nTVIS_BIN = %r\n" % str(build_dir / "bin" / "tvis"))


class LaptopBuildPy(build_py):
    """The laptop wheel's package: the CLI built without any torch
    (TVIS_PYTHON names no interpreter) at tvis/bin/tvis, the viewer at
    tvis/web, and _build_info.py naming the CLI beside it."""

    def run(self):
        super().run()
        # two levels under the source tree, as build/native: the compiler cache's relative paths match
        build_dir = Path(os.environ.get("TVIS_PIP_BUILD_DIR") or ROOT / "build" / "wheel-cmake")
        cmake_build(build_dir, "/nonexistent", ["tvis"])
        package = Path(self.build_lib) / "tvis"
        (package / "bin").mkdir(parents=True, exist_ok=True)
        shutil.copy2(build_dir / "bin" / "tvis", package / "bin" / "tvis")
        copy_viewer(package / "web")
        if not (package / "web" / "viewer.html").is_file():
            raise RuntimeError("the laptop wheel needs the built browser viewer (build/web or TVIS_WEB_DIR): "
                               "run tools/bootstrap --demo first")
        (package / "_build_info.py").write_text(
            "# written by setup.py (TVIS_WHEEL=laptop); not in git\nimport os\n"
            "TVIS_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bin', 'tvis')\n")


class ProgramsDistribution(Distribution):
    """A package that carries programs but no extension module: installed
    to platlib and not pure, as a wheel with native code must be."""

    def has_ext_modules(self):
        return True


def laptop_bdist_wheel():
    """bdist_wheel tagging py3-none-<this platform>: the programs run under
    any Python 3 (auditwheel then names the manylinux platform)."""
    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:  # setuptools before 70.1
        from wheel.bdist_wheel import bdist_wheel

    class LaptopWheel(bdist_wheel):
        def get_tag(self):
            return "py3", "none", super().get_tag()[2]

    return LaptopWheel


if LAPTOP_WHEEL:
    EXTENSIONS, COMMANDS = [], {"build_py": LaptopBuildPy, "bdist_wheel": laptop_bdist_wheel()}
    DISTRIBUTION = ProgramsDistribution
else:
    EXTENSIONS, COMMANDS = [Extension("_tvis_native", sources=[])], {"build_ext": CMakeBuild}
    DISTRIBUTION = Distribution

setup(
    name="tvis",
    version="0.1.0",
    description="A step-through debugger for PyTorch training",
    package_dir={"": "recorder/python"},
    packages=find_packages(where="recorder/python"),
    ext_modules=EXTENSIONS,
    cmdclass=COMMANDS,
    distclass=DISTRIBUTION,
    entry_points={"console_scripts": ["tvis = tvis._cli:main"]},
    python_requires=">=3.8",
    zip_safe=False,
)
