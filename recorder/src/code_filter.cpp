#include "code_filter.h"

namespace tvis::recorder {

CodeFilter::CodeFilter(std::string project_dir, std::vector<std::string> exclude_dirs)
    : paths_(std::move(project_dir), std::move(exclude_dirs)) {}

CodeFilter::~CodeFilter() {
  if (!Py_IsInitialized()) return;
  for (auto& [code, e] : cache_) Py_DECREF(reinterpret_cast<PyObject*>(code));
}

bool CodeFilter::traced(PyCodeObject* code, const std::string** path) {
  auto it = cache_.find(code);
  if (it == cache_.end()) {
    Entry e{false, {}};
    const char* fn = PyUnicode_AsUTF8(code->co_filename);
    if (fn) e.path = fn; else PyErr_Clear();
    e.traced = paths_.path_traced(e.path);
    Py_INCREF(reinterpret_cast<PyObject*>(code));
    it = cache_.emplace(code, std::move(e)).first;
  }
  if (it->second.traced && path) *path = &it->second.path;
  return it->second.traced;
}

}  // namespace tvis::recorder
