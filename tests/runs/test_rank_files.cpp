#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "temp_dir.h"
#include "tvis/runs/rank_files.h"
#include "tvis/runs/run_folders.h"

using namespace tvis::runs;
using tvis::runs::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("rank 0 is run.tvis; the others rank<k>.tvis, found in rank order") {
  CHECK(rank_file_name(0) == "run.tvis");
  CHECK(rank_file_name(12) == "rank12.tvis");
  TempDir t;
  for (const char* f : {"run.tvis", "rank2.tvis", "rank10.tvis", "rank1.tvis", "rank0.tvis", "rank01.tvis",
                        "rankx.tvis", "rank3.tvis.tmp", "notes.txt"})
    t.file(f);
  std::vector<int> ranks;
  for (const auto& [rank, file] : rank_files_in(t.path.string())) {
    ranks.push_back(rank);
    CHECK(fs::path(file).filename() == rank_file_name(rank));
  }
  CHECK(ranks == std::vector<int>{0, 1, 2, 10});
}

TEST_CASE("only regular files are ranks: a FIFO or a folder with a rank's name is not") {
  TempDir t;
  t.file("run.tvis");
  REQUIRE(mkfifo((t.path / "rank1.tvis").c_str(), 0600) == 0);
  fs::create_directory(t.path / "rank2.tvis");
  t.file("rank3.tvis");
  std::vector<int> ranks;
  for (const auto& [rank, file] : rank_files_in(t.path.string())) ranks.push_back(rank);
  CHECK(ranks == std::vector<int>{0, 3});
}

TEST_CASE("the ranks of one launch join one folder, hidden from the run list; another key gets its own") {
  TempDir t;
  const std::string runs = t.path.string();
  std::string error;
  const std::string a0 = join_launch_folder(runs, "train", "torchrun/abc/0", 0, &error);
  const std::string a1 = join_launch_folder(runs, "train", "torchrun/abc/0", 1, &error);
  const std::string b0 = join_launch_folder(runs, "train", "torchrun/xyz/0", 0, &error);
  REQUIRE(!a0.empty());
  CHECK(a0 == a1);
  CHECK(b0 != a0);
  t.file(fs::path(a0).filename().string() + "/run.tvis");
  t.file(fs::path(b0).filename().string() + "/run.tvis");
  CHECK(list_runs(runs).size() == 2);  // the claim links are not runs
}

TEST_CASE("a claim whose folder already holds the joining rank's file is an earlier launch's") {
  TempDir t;
  const std::string runs = t.path.string();
  std::string error;
  const std::string first = join_launch_folder(runs, "train", "srun/7.0", 1, &error);
  REQUIRE(!first.empty());
  t.file(fs::path(first).filename().string() + "/rank1.tvis");
  const std::string again = join_launch_folder(runs, "train", "srun/7.0", 1, &error);
  REQUIRE(!again.empty());
  CHECK(again != first);
}

TEST_CASE("ranks starting at once agree on one folder") {
  TempDir t;
  const std::string runs = t.path.string();
  std::vector<std::string> got(8);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 8; ++r)
    ranks.emplace_back([&, r] {
      std::string error;
      got[r] = join_launch_folder(runs, "train", "torchrun/race/0", r, &error);
    });
  for (auto& th : ranks) th.join();
  CHECK(std::set<std::string>(got.begin(), got.end()).size() == 1);
  CHECK(!got[0].empty());
  int folders = 0;
  for (const auto& e : fs::directory_iterator(runs)) folders += e.is_directory() && !e.is_symlink();
  CHECK(folders == 1);  // the losers removed theirs
}

// Issue 29 item 9: the claim used to be a symlink that joining ranks followed, so whoever could
// write to a shared runs folder could plant `.launch-<hash>` -> /their/folder and receive the
// launch's recording. Links, foreign content and folders that are links are refused now.
TEST_CASE("a planted launch claim (a link, a path elsewhere, a link to a folder) is refused, never followed") {
  TempDir t;
  const std::string runs = t.path.string();
  std::string error;
  // Learn the claim's name from an honest launch, then replace the claim.
  const std::string honest = join_launch_folder(runs, "train", "torchrun/evil/0", 0, &error);
  REQUIRE(!honest.empty());
  std::string claim;
  for (const auto& e : fs::directory_iterator(runs))
    if (e.path().filename().string().rfind(".launch-", 0) == 0) claim = e.path().string();
  REQUIRE(!claim.empty());
  CHECK(fs::is_regular_file(fs::symlink_status(claim)));  // the claim itself is no link
  TempDir elsewhere;
  const std::string target = elsewhere.path.string();

  fs::remove(claim);
  fs::create_directory_symlink(target, claim);  // the old format's link, pointing outside
  error.clear();
  CHECK(join_launch_folder(runs, "train", "torchrun/evil/0", 1, &error).empty());
  CHECK(error.find("refusing the launch claim") != std::string::npos);

  fs::remove(claim);
  fs::create_symlink(fs::path(honest).filename(), claim);  // even a link to the right folder
  error.clear();
  CHECK(join_launch_folder(runs, "train", "torchrun/evil/0", 1, &error).empty());

  fs::remove(claim);
  t.file(fs::path(claim).filename().string(), "../" + fs::path(target).filename().string());
  error.clear();
  CHECK(join_launch_folder(runs, "train", "torchrun/evil/0", 1, &error).empty());
  CHECK(error.find("folder name") != std::string::npos);

  fs::remove(claim);
  fs::create_directory_symlink(target, runs + "/redirect");  // a folder name that is a link
  t.file(fs::path(claim).filename().string(), "redirect");
  error.clear();
  CHECK(join_launch_folder(runs, "train", "torchrun/evil/0", 1, &error).empty());
  CHECK(error.find("a link is refused") != std::string::npos);
  CHECK(fs::is_empty(target));  // nothing was ever created in the attacker's folder
}
