// A run list (`tvis open`'s / and /api/runs, the agent's List) beside a
// crafted run (issue 46, security finding 2): a RunMeta whose argv and
// notices reference one 64 kB string 20,000 times made every card copy
// gigabytes, so the whole list failed. The list must answer with every run,
// the crafted one's copies bounded and an unreadable one as its own error row.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "tvis/format/run_summary.h"
#include "tvis/remote/run_catalog.h"
#include "tvis/remote/run_store.h"

namespace fs = std::filesystem;
using tvis::test::TempDir;

TEST_CASE("a run list holds a good run, a run with a shared argv string and an unreadable run", "[hostile]") {
  TempDir dir;
  const fs::path data = fs::path(TVIS_TEST_DATA_DIR);
  const std::vector<std::pair<std::string, fs::path>> runs = {
      {"20260101-000000_good", data / "golden_v1.tvis"},
      {"20260102-000000_shared_argv", data / "hostile" / "chunk_shared_argv.tvis"},
      {"20260103-000000_footer_huge", data / "hostile" / "chunk_footer_huge.tvis"},
  };
  for (const auto& [folder, file] : runs) {
    fs::create_directories(dir.path / folder);
    fs::copy_file(file, dir.path / folder / "run.tvis");
  }
  auto store = tvis::remote::open_local_store(dir.path.string());
  REQUIRE(store.ok);
  auto listed = store.value->list();
  REQUIRE(listed.ok);
  const auto j = nlohmann::json::parse(listed.value, nullptr, false);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 3);
  CHECK(listed.value.size() < 1'000'000);
  for (const auto& card : j) {
    const std::string name = card["name"];
    INFO(name);
    if (name.find("_good") != std::string::npos) {
      CHECK(card["error"].is_null());
      CHECK(card["complete"] == true);
    } else if (name.find("_shared_argv") != std::string::npos) {
      CHECK(card["error"].is_null());
      REQUIRE(card["argv"].is_array());
      CHECK(card["argv"].size() <= tvis::format::kSummaryListItems + 1);
      CHECK(card["argv"].back().get<std::string>() == "... (20000 arguments in all)");
      CHECK(card["script"] == "train.py");
    } else {
      REQUIRE(card["error"].is_string());
      CHECK(card["error"].get<std::string>().find("footer index") != std::string::npos);
    }
  }
}
