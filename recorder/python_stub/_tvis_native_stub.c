/* _tvis_native_stub.c: the `_tvis_native` a pip install gets when its
 * interpreter has no torch (setup.py). Viewing (tvis open, tvis inspect)
 * needs no native module; importing this one says why recording is missing. */
#include <Python.h>

static struct PyModuleDef stub = {PyModuleDef_HEAD_INIT, "_tvis_native", NULL, -1, NULL};

PyMODINIT_FUNC PyInit__tvis_native(void) {
  PyErr_SetString(PyExc_ImportError,
                  "tvis was installed without torch: recording (tvis run) needs torch in this environment; "
                  "install torch, then reinstall tvis (pip install -e .)");
  (void)stub;
  return NULL;
}
