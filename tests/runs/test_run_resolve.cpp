#include <catch2/catch.hpp>

#include <filesystem>

#include "temp_dir.h"
#include "tvis/runs/run_resolve.h"

using namespace tvis::runs;
using tvis::runs::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("a file names itself, whatever it holds") {
  TempDir t;
  const std::string f = t.file("x/anything.tvis").string();
  const RunLocation loc = locate_run(f);
  CHECK(loc.kind == RunLocation::Kind::File);
  CHECK(loc.file == f);
}

TEST_CASE("a run folder names its run.tvis") {
  TempDir t;
  t.file("r/run.tvis");
  std::string error;
  CHECK(resolve_run_file((t.path / "r").string(), &error) == (t.path / "r/run.tvis").string());
}

TEST_CASE("a runs folder names the newest run, or lists them all") {
  TempDir t;
  t.file("runs/20260101-000000_train_a/run.tvis");
  t.file("runs/20260102-000000_train_b/run.tvis");
  const std::string runs = (t.path / "runs").string();
  const RunLocation loc = locate_run(runs);
  REQUIRE(loc.kind == RunLocation::Kind::RunsFolder);
  REQUIRE(loc.run_dirs.size() == 2);
  CHECK(fs::path(loc.run_dirs[0]).filename() == "20260102-000000_train_b");
  std::string error;
  CHECK(resolve_run_file(runs, &error) == (t.path / "runs/20260102-000000_train_b/run.tvis").string());
}

TEST_CASE("missing paths and empty runs folders are one-line problems") {
  TempDir t;
  std::string error;
  CHECK(resolve_run_file((t.path / "nope.tvis").string(), &error).empty());
  CHECK(error == "no such file or folder: " + (t.path / "nope.tvis").string());
  t.dir("empty/sub");
  CHECK(resolve_run_file((t.path / "empty").string(), &error).empty());
  CHECK(error.rfind("no run in " + (t.path / "empty").string(), 0) == 0);
  CHECK(error.find('\n') == std::string::npos);
}
