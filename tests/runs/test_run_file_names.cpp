// run_file_names.h: the rules by name alone, which tvis, tvis-view and the
// browser (wasm/run_rules.cpp for viewer_glue.js) share.
#include <catch2/catch.hpp>

#include "tvis/runs/run_file_names.h"

using namespace tvis::runs;

TEST_CASE("rank_of_file_name: run.tvis is rank 0, rank<k>.tvis rank k, nothing else", "[runs]") {
  CHECK(rank_of_file_name("run.tvis") == 0);
  CHECK(rank_of_file_name("rank1.tvis") == 1);
  CHECK(rank_of_file_name("rank999999.tvis") == 999999);
  for (const char* no : {"rank0.tvis", "rank01.tvis", "rank1000000.tvis", "rank.tvis", "rank1a.tvis", "rank-1.tvis",
                         "rank1.tvis.bak", "Rank1.tvis", "run.tvis.tmp", "x.tvis", "", "rank1.tvi"})
    CHECK(rank_of_file_name(no) == -1);
}

TEST_CASE("is_found_run_file: .tvis files at most three folders down, nothing hidden below the first part", "[runs]") {
  CHECK(is_found_run_file("run.tvis"));
  CHECK(is_found_run_file("runs/20260101-120000_train_abcdef/run.tvis"));
  CHECK(is_found_run_file("a/b/c/any.tvis"));
  CHECK_FALSE(is_found_run_file("a/b/c/d/run.tvis"));  // four folders down
  CHECK(is_found_run_file(".runs/x/run.tvis"));          // what was given may be hidden
  CHECK_FALSE(is_found_run_file("runs/.launch-1a2b/run.tvis"));  // a launch's claim
  CHECK_FALSE(is_found_run_file("runs/x/.run.tvis"));
  CHECK_FALSE(is_found_run_file("runs/x/run.tvis.part"));
  CHECK_FALSE(is_found_run_file("runs/x/notes.txt"));
}

TEST_CASE("group_found_runs: a folder's rank files are one run, named after it, newest first", "[runs]") {
  const std::vector<std::string> paths = {
      "runs/20260101-120000_a_000001/run.tvis",
      "runs/20260102-090000_ddp_000002/rank1.tvis",
      "runs/20260102-090000_ddp_000002/run.tvis",
      "runs/20260101-130000_b_000003/extra.tvis",   // not a rank file: a run of its own
      "runs/20260101-130000_b_000003/rank2.tvis",
      "loose.tvis",
  };
  const std::vector<FoundRun> runs = group_found_runs(paths);
  REQUIRE(runs.size() == 5);
  CHECK(runs[0].name == "loose.tvis");  // by name, descending (ASCII: lowercase after digits)
  CHECK(runs[1].name == "20260102-090000_ddp_000002");
  CHECK(runs[1].files == std::vector<std::pair<int, size_t>>{{0, 2}, {1, 1}});
  CHECK(runs[2].name == "20260101-130000_b_000003");
  CHECK(runs[2].files == std::vector<std::pair<int, size_t>>{{0, 3}});
  CHECK(runs[3].name == "20260101-130000_b_000003");
  CHECK(runs[3].files == std::vector<std::pair<int, size_t>>{{2, 4}});
  CHECK(runs[4].name == "20260101-120000_a_000001");
  CHECK(runs[4].files == std::vector<std::pair<int, size_t>>{{0, 0}});
  CHECK(group_found_runs({}).empty());
}
