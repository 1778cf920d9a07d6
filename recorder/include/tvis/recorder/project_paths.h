// project_paths.h: which source files are "project code", by path alone.
//
// A path is traced when it is absolute, under the project directory, not
// under an excluded directory (tvis's own package) and not inside a
// site-packages / dist-packages folder (a venv kept in the project).
// Torch- and Python-free; code_filter.h caches the verdict per code object.
#pragma once

#include <string>
#include <vector>

namespace tvis::recorder {

class ProjectPaths {
 public:
  ProjectPaths(std::string project_dir, std::vector<std::string> exclude_dirs);
  /// True when `path` is project code by the rule above.
  bool path_traced(const std::string& path) const;
  /// True when `path` lies under an excluded directory (tvis's own code).
  bool path_excluded(const std::string& path) const;
  /// The path shown to users: relative to the project when under it.
  std::string display_path(const std::string& path) const;

 private:
  std::string project_;  // with trailing '/'
  std::vector<std::string> exclude_;  // each with trailing '/'
};

}  // namespace tvis::recorder
