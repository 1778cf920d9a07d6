// temp_dir.h: a fresh directory under the system temp folder, removed with
// everything in it when the object goes (tests/remote's fixtures).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace tvis::test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "tvis-remote") {
    std::string t = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace tvis::test
