// temp_dir.h: a fresh folder per test case, removed with everything in it.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace tvis::runs::test {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tvis_runs_XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  /// Creates folder `rel` (and parents) under path; returns it.
  fs::path dir(const std::string& rel) const {
    fs::create_directories(path / rel);
    return path / rel;
  }
  /// Writes `text` to file `rel` under path, creating its folder; returns it.
  fs::path file(const std::string& rel, const std::string& text = "x") const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel) << text;
    return path / rel;
  }
};

}  // namespace tvis::runs::test
