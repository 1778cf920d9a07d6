#include <catch2/catch.hpp>

#include <filesystem>

#include "temp_dir.h"
#include "tvis/runs/sandbox_path.h"

using namespace tvis::runs;
using tvis::runs::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("paths inside the root resolve, existing or not") {
  TempDir t;
  t.file("root/a/run.tvis");
  const std::string root = (t.path / "root").string();
  const std::string real = fs::canonical(root).string();
  std::string error;
  CHECK(sandboxed_path(root, "a/run.tvis", &error) == real + "/a/run.tvis");
  CHECK(sandboxed_path(root, "a/./new/file", &error) == real + "/a/new/file");
  CHECK(sandboxed_path(root, ".", &error).rfind(real, 0) == 0);
}

TEST_CASE("absolute paths and .. are refused") {
  TempDir t;
  t.dir("root/a");
  const std::string root = (t.path / "root").string();
  std::string error;
  CHECK(sandboxed_path(root, "/etc/passwd", &error).empty());
  CHECK(error.rfind("absolute path refused", 0) == 0);
  CHECK(sandboxed_path(root, "../root/a", &error).empty());
  CHECK(sandboxed_path(root, "a/../../x", &error).empty());
  CHECK(error.rfind("path escapes", 0) == 0);
}

TEST_CASE("a symlink out of the root is refused, one inside it is followed") {
  TempDir t;
  t.file("outside/secret");
  t.file("root/a/run.tvis");
  const fs::path root = t.path / "root";
  fs::create_directory_symlink(t.path / "outside", root / "out");
  fs::create_directory_symlink(root / "a", root / "alias");
  fs::create_symlink(t.path / "outside/secret", root / "a/link");
  std::string error;
  CHECK(sandboxed_path(root.string(), "out/secret", &error).empty());
  CHECK(error.rfind("path escapes", 0) == 0);
  CHECK(sandboxed_path(root.string(), "a/link", &error).empty());
  CHECK(sandboxed_path(root.string(), "alias/run.tvis", &error) == fs::canonical(root / "a/run.tvis").string());
}

TEST_CASE("a prefix that is not a parent folder does not count as inside") {
  TempDir t;
  t.dir("root");
  t.file("root2/x");
  const fs::path root = t.path / "root";
  fs::create_symlink(t.path / "root2/x", root / "sneaky");
  std::string error;
  CHECK(sandboxed_path(root.string(), "sneaky", &error).empty());
}

TEST_CASE("a missing root is an error") {
  TempDir t;
  std::string error;
  CHECK(sandboxed_path((t.path / "nope").string(), "a", &error).empty());
  CHECK(error.rfind("no such root folder", 0) == 0);
}
