#include "scratch_dir.h"

#include <unistd.h>

#include <system_error>

namespace tvis::test {
namespace {

// Owns the folder; its destructor runs at exit, after every test.
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    dir = std::filesystem::temp_directory_path() / ("tvis_test_viewer_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

}  // namespace

const std::filesystem::path& scratch_dir() {
  static Scratch scratch;
  return scratch.dir;
}

std::string scratch_path(const std::string& name) { return (scratch_dir() / name).string(); }

}  // namespace tvis::test
