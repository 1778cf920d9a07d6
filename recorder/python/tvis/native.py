"""The recorder's compiled module, ``_tvis_native``, built for this torch.

One source tree builds the module against several torches (the project's
newest in build/native, Debian's torch 1.13 in build/native-torch1); a module
loaded into another torch than its own fails with missing symbols or worse.
Each build leaves ``_tvis_native.torch`` beside the module: the
``torch.__version__`` it was compiled against.

``load(folders)`` imports the module once and returns it:

- ``folders`` given (by default ``$TVIS_NATIVE_DIRS``, ':'-separated, as
  ``tvis run`` and the tests set it): the first of those folders whose ``_tvis_native.torch`` names this interpreter's
  torch is put first on ``sys.path`` for the import and taken off again; no
  match raises ``NativeModuleMismatch`` naming each folder's torch.
- none (a pip install, where the module sits beside the package): a plain
  import.

``generated(name)`` returns a module generated from schema/recording.fbs at
build time, which each build leaves beside its module: ``_tvis_schema`` (the
default: the schema's enums, fields, defaults and types) or ``_tvis_records``
(the record constructors); the one beside the ``_tvis_native`` loaded, so the
numbers and fields Python writes are those the module was compiled with.

The runner removes the variable before the script starts, so the script's
own child processes do not inherit it.
"""

import os
import sys

STAMP = "_tvis_native.torch"
GENERATED = "_tvis_schema"


class NativeModuleMismatch(RuntimeError):
    """No module folder was built for this interpreter's torch."""


def _stamp(folder):
    try:
        with open(os.path.join(folder, STAMP), encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def choose(folders, torch_version):
    """The first folder built for ``torch_version``; raises NativeModuleMismatch."""
    seen = []
    for folder in folders:
        built_for = _stamp(folder)
        if built_for == torch_version:
            return folder
        seen.append("%s (%s)" % (folder, "torch " + built_for if built_for else "no %s" % STAMP))
    raise NativeModuleMismatch(
        "tvis's recorder module was not built for this interpreter's torch %s (%s); built: %s. Build it for this "
        "interpreter (tools/bootstrap, or cmake -DTVIS_PYTHON=%s), or record with an interpreter listed there "
        "(tvis run --python PATH)" % (torch_version, sys.executable, "; ".join(seen) or "none", sys.executable))


def folders_from_environment():
    return [f for f in os.environ.get("TVIS_NATIVE_DIRS", "").split(os.pathsep) if f]


def load(folders=None):
    if "_tvis_native" in sys.modules:
        return sys.modules["_tvis_native"]
    if folders is None:
        folders = folders_from_environment()
    if not folders:
        import _tvis_native
        return _tvis_native
    import torch
    folder = choose(folders, torch.__version__)
    sys.path.insert(0, folder)
    try:
        import _tvis_native
    finally:
        sys.path.remove(folder)
    return _tvis_native


def generated(name=GENERATED):
    """The generated module ``name`` (``_tvis_schema``, ``_tvis_records``) from
    the folder of the loaded ``_tvis_native``; raises ImportError naming the
    folder when the build left none there."""
    if name in sys.modules:
        return sys.modules[name]
    import importlib.util
    folder = os.path.dirname(os.path.abspath(load().__file__))
    path = os.path.join(folder, name + ".py")
    if not os.path.isfile(path):
        raise ImportError("tvis: %s has _tvis_native but no %s.py (generated from schema/recording.fbs when the "
                          "module is built): rebuild the module (ninja _tvis_native, or pip install again)"
                          % (folder, name))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module
