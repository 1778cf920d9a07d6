// code_filter.h: which Python code objects are "project code" (traced).
//
// A code object is traced when its co_filename is an absolute path under the
// project directory, not under an excluded directory (tvis's own package) and
// not inside a site-packages / dist-packages folder (a venv kept in the
// project). The answer is cached per code object; the cache holds a strong
// reference to each code object it has seen so an address is never reused
// while cached. Needs the GIL.
#pragma once

#include <Python.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace tvis::recorder {

class CodeFilter {
 public:
  CodeFilter(std::string project_dir, std::vector<std::string> exclude_dirs);
  ~CodeFilter();
  /// True when `path` is project code by the rule above.
  bool path_traced(const std::string& path) const;
  /// True when `path` lies under an excluded directory (tvis's own code).
  bool path_excluded(const std::string& path) const;
  /// Cached verdict for `code`; `path` receives co_filename when traced.
  bool traced(PyCodeObject* code, const std::string** path);

 private:
  std::string project_;  // with trailing '/'
  std::vector<std::string> exclude_;
  struct Entry { bool traced; std::string path; };
  std::unordered_map<PyCodeObject*, Entry> cache_;
};

}  // namespace tvis::recorder
