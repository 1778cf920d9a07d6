#include <catch2/catch.hpp>

#include <filesystem>

#include "temp_dir.h"
#include "tvis/runs/run_folders.h"
#include "tvis/runs/run_name.h"

using namespace tvis::runs;
using tvis::runs::test::TempDir;
namespace fs = std::filesystem;

namespace {
std::string name_of(const std::string& p) { return fs::path(p).filename().string(); }
}  // namespace

TEST_CASE("ensure_runs_folder creates missing parents and refuses a file") {
  TempDir t;
  std::string error;
  CHECK(ensure_runs_folder((t.path / "a/b/runs").string(), &error));
  CHECK(fs::is_directory(t.path / "a/b/runs"));
  CHECK(ensure_runs_folder((t.path / "a/b/runs").string(), &error));  // already there
  t.file("plain");
  CHECK_FALSE(ensure_runs_folder((t.path / "plain").string(), &error));
  CHECK(error.find("is not a folder") != std::string::npos);
}

TEST_CASE("create_run_folder makes distinct empty folders named by the rule") {
  TempDir t;
  std::string error;
  const std::string a = create_run_folder(t.path.string(), "train", &error);
  const std::string b = create_run_folder(t.path.string(), "train", &error);
  REQUIRE(!a.empty());
  REQUIRE(!b.empty());
  CHECK(a != b);
  CHECK(fs::is_empty(a));
  const auto parsed = parse_run_folder_name(name_of(a));
  REQUIRE(parsed);
  CHECK(parsed->stem == "train");
  CHECK(parsed->id.size() == 6);
}

TEST_CASE("create_run_folder reports a missing runs folder") {
  TempDir t;
  std::string error;
  CHECK(create_run_folder((t.path / "nope").string(), "train", &error).empty());
  CHECK(error.find("cannot create run folder") != std::string::npos);
}

TEST_CASE("list_runs: only folders holding run.tvis, newest stamp first") {
  TempDir t;
  t.file("runs/20260101-000000_train_a/run.tvis");
  t.file("runs/20260103-000000_train_c/run.tvis");
  t.file("runs/20260102-000000_train_b/run.tvis");
  t.dir("runs/20260104-000000_train_empty");  // the script never started
  t.file("runs/notes.txt");
  const auto runs = list_runs((t.path / "runs").string());
  REQUIRE(runs.size() == 3);
  CHECK(name_of(runs[0]) == "20260103-000000_train_c");
  CHECK(name_of(runs[1]) == "20260102-000000_train_b");
  CHECK(name_of(runs[2]) == "20260101-000000_train_a");
}

TEST_CASE("list_runs: the same second is ordered by the run file's time, not the id") {
  TempDir t;
  const fs::path older = t.file("runs/20260101-000000_train_ffffff/run.tvis");
  const fs::path newer = t.file("runs/20260101-000000_train_000000/run.tvis");
  fs::last_write_time(older, fs::last_write_time(newer) - std::chrono::seconds(5));
  const auto runs = list_runs((t.path / "runs").string());
  REQUIRE(runs.size() == 2);
  CHECK(name_of(runs[0]) == "20260101-000000_train_000000");
}

TEST_CASE("list_runs: renamed runs come after stamped ones") {
  TempDir t;
  t.file("runs/zz_best/run.tvis");
  t.file("runs/20260101-000000_train_a/run.tvis");
  const auto runs = list_runs((t.path / "runs").string());
  REQUIRE(runs.size() == 2);
  CHECK(name_of(runs[0]) == "20260101-000000_train_a");
  CHECK(name_of(runs[1]) == "zz_best");
}

TEST_CASE("list_runs of a missing folder is empty") {
  TempDir t;
  CHECK(list_runs((t.path / "nope").string()).empty());
}
