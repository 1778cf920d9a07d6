#include <catch2/catch.hpp>

#include "tvis/runs/run_name.h"

using namespace tvis::runs;

TEST_CASE("script_stem drops folders and the last extension and replaces odd characters") {
  CHECK(script_stem("/a/b/train.py") == "train");
  CHECK(script_stem("train.v2.py") == "train.v2");
  CHECK(script_stem("my script!.py") == "my_script_");
  CHECK(script_stem(".hidden") == ".hidden");
  CHECK(script_stem("/a/") == "script");
}

TEST_CASE("run_folder_name is stamp_stem_id and parses back") {
  std::tm tm{};
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = 0;
  tm.tm_mday = 2;
  tm.tm_hour = 9;
  tm.tm_min = 5;
  tm.tm_sec = 7;
  tm.tm_isdst = -1;
  const std::string name = run_folder_name(std::mktime(&tm), "train_gpt", 0x12abcdef);
  CHECK(name == "20260102-090507_train_gpt_abcdef");
  const auto parsed = parse_run_folder_name(name);
  REQUIRE(parsed);
  CHECK(parsed->stamp == "20260102-090507");
  CHECK(parsed->stem == "train_gpt");
  CHECK(parsed->id == "abcdef");
}

TEST_CASE("parse_run_folder_name refuses names without a stamp") {
  CHECK_FALSE(parse_run_folder_name("best_run"));
  CHECK_FALSE(parse_run_folder_name("2026010-090507_train_a"));
  CHECK_FALSE(parse_run_folder_name("20260102-090507"));
}
