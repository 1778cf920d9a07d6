#include "python_discovery.h"

#include <cstdlib>

#include "paths.h"
#include "process.h"

#ifndef TVIS_BUILD_PYTHON
#define TVIS_BUILD_PYTHON ""
#endif

namespace tvis::cli {

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

/// "a::b:" -> {"a", "b"}: empty entries are skipped.
std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = path.find(':', start);
    const std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty()) dirs.push_back(dir);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return dirs;
}

}  // namespace

PythonSearch PythonSearch::from_environment() {
  return PythonSearch{env_or_empty("TVIS_PYTHON"), self_exe_dir(), env_or_empty("PATH"), TVIS_BUILD_PYTHON};
}

std::vector<std::string> python_candidates(const PythonSearch& s) {
  std::vector<std::string> candidates;
  if (!s.tvis_python.empty()) candidates.push_back(s.tvis_python);
  if (!s.build_python.empty()) candidates.push_back(s.build_python);
  if (!s.exe_dir.empty()) candidates.push_back(s.exe_dir + "/python3");
  for (const auto& dir : split_path(s.path)) candidates.push_back(dir + "/python3");
  candidates.push_back("/usr/bin/python3");
  return candidates;
}

std::string likely_python(const std::string& explicit_python, const PythonSearch& s) {
  if (!explicit_python.empty()) return is_executable(explicit_python) ? explicit_python : "";
  for (const auto& c : python_candidates(s))
    if (is_executable(c) && is_elf(c)) return c;
  return "";
}

}  // namespace tvis::cli
