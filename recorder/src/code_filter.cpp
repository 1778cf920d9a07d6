#include "code_filter.h"

namespace tvis::recorder {
namespace {
std::string with_slash(std::string d) {
  if (d.empty() || d.back() != '/') d.push_back('/');
  return d;
}
bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
}  // namespace

CodeFilter::CodeFilter(std::string project_dir, std::vector<std::string> exclude_dirs)
    : project_(with_slash(std::move(project_dir))) {
  for (auto& d : exclude_dirs) exclude_.push_back(with_slash(d));
}

CodeFilter::~CodeFilter() {
  if (!Py_IsInitialized()) return;
  for (auto& [code, e] : cache_) Py_DECREF(reinterpret_cast<PyObject*>(code));
}

bool CodeFilter::path_traced(const std::string& path) const {
  if (path.empty() || path[0] != '/' || !starts_with(path, project_)) return false;
  for (const auto& d : exclude_)
    if (starts_with(path, d)) return false;
  return path.find("/site-packages/") == std::string::npos && path.find("/dist-packages/") == std::string::npos;
}

bool CodeFilter::path_excluded(const std::string& path) const {
  for (const auto& d : exclude_)
    if (starts_with(path, d)) return true;
  return false;
}

bool CodeFilter::traced(PyCodeObject* code, const std::string** path) {
  auto it = cache_.find(code);
  if (it == cache_.end()) {
    Entry e{false, {}};
    const char* fn = PyUnicode_AsUTF8(code->co_filename);
    if (fn) e.path = fn; else PyErr_Clear();
    e.traced = path_traced(e.path);
    Py_INCREF(reinterpret_cast<PyObject*>(code));
    it = cache_.emplace(code, std::move(e)).first;
  }
  if (it->second.traced && path) *path = &it->second.path;
  return it->second.traced;
}

}  // namespace tvis::recorder
