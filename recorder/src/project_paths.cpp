#include "tvis/recorder/project_paths.h"

namespace tvis::recorder {

namespace {

std::string with_slash(std::string d) {
  if (d.empty() || d.back() != '/') d.push_back('/');
  return d;
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

ProjectPaths::ProjectPaths(std::string project_dir, std::vector<std::string> exclude_dirs)
    : project_(with_slash(std::move(project_dir))) {
  for (auto& d : exclude_dirs) exclude_.push_back(with_slash(d));
}

bool ProjectPaths::path_traced(const std::string& path) const {
  if (path.empty() || path[0] != '/' || !starts_with(path, project_)) return false;
  if (path_excluded(path)) return false;
  return path.find("/site-packages/") == std::string::npos && path.find("/dist-packages/") == std::string::npos;
}

bool ProjectPaths::path_excluded(const std::string& path) const {
  for (const auto& d : exclude_)
    if (starts_with(path, d)) return true;
  return false;
}

std::string ProjectPaths::display_path(const std::string& path) const {
  return starts_with(path, project_) ? path.substr(project_.size()) : path;
}

}  // namespace tvis::recorder
