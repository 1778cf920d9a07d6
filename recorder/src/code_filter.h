// code_filter.h: which Python code objects are "project code" (traced): the
// path rule of project_paths.h applied to co_filename. The answer is cached
// per code object; the cache holds a strong reference to each code object it
// has seen so an address is never reused while cached. Needs the GIL.
#pragma once

#include <Python.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "tvis/recorder/project_paths.h"

namespace tvis::recorder {

class CodeFilter {
 public:
  CodeFilter(std::string project_dir, std::vector<std::string> exclude_dirs);
  ~CodeFilter();
  CodeFilter(const CodeFilter&) = delete;
  CodeFilter& operator=(const CodeFilter&) = delete;
  /// True when `path` lies under an excluded directory (tvis's own code).
  bool path_excluded(const std::string& path) const { return paths_.path_excluded(path); }
  /// Cached verdict for `code`; `path` receives co_filename when traced.
  bool traced(PyCodeObject* code, const std::string** path);

 private:
  ProjectPaths paths_;
  struct Entry { bool traced; std::string path; };
  std::unordered_map<PyCodeObject*, Entry> cache_;
};

}  // namespace tvis::recorder
