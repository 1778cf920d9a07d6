// The Compare page over the recordings in tests/data: a run compared with
// itself agrees everywhere (no first divergence, max |A - B| = 0 at the
// shown position); a run of another model is named as such and does not
// crash; a second run that cannot be opened is a message in errors; the
// page's commands move its position. Real runs that differ in one layer
// are compared in tests/e2e/test_compare.sh.
#include <catch2/catch.hpp>

#include "headless_app.h"
#include "tvis/format/byte_source.h"

using tvis::test::HeadlessApp;
using nlohmann::json;

namespace {

// Frames until the page compared its position (or 80 frames passed).
json compared_state(HeadlessApp& h) {
  json s;
  for (int i = 0; i < 80; ++i) {
    h.frame();
    s = h.state();
    const json& v = s["view"];
    if (s["page"] == "Compare" && v.is_object() && v["ready"] == true && v["why"] != "loading" &&
        (!v["max_abs"].is_null() || !v["why"].is_null()))
      break;
  }
  return s;
}

}  // namespace

TEST_CASE("a run compared with itself agrees everywhere", "[viewer][compare]") {
  HeadlessApp h;
  h.app().open(tvis::test::file_source_for(TVIS_TEST_DIAGNOSE_RUN));
  h.app().open_compare(tvis::test::file_source_for(TVIS_TEST_DIAGNOSE_RUN));
  h.show_page("Compare");
  json s = compared_state(h);
  REQUIRE(s["page"] == "Compare");
  CHECK(s["compare"]["status"] == "open");
  const json& v = s["view"];
  REQUIRE(v["ready"] == true);
  CHECK(v["identical"] == true);
  CHECK(v["first"].is_null());
  CHECK(v["layers"] == json::array());
  CHECK(v["problem"].is_null());
  CHECK(v["show"] == "activation");
  REQUIRE(v["module"].is_string());
  INFO(v.dump());
  if (v["why"].is_null()) {  // the first module's output kept values
    CHECK(v["max_abs"] == 0.0);
    CHECK(v["differing"] == 0);
  }
  // a parameter's weight, by command
  const json first_param = json::parse(h.app().command(R"({"compare": {"show": "weight", "step": 0}})"));
  CHECK(first_param == true);
  s = compared_state(h);
  CHECK(s["view"]["show"] == "weight");
  CHECK(s["view"]["param"].is_string());
  CHECK(s["view"]["module"].is_null());
  CHECK(json::parse(h.app().command(R"({"compare": {"show": "sideways"}})")) == false);
  CHECK(json::parse(h.app().command(R"({"compare_first": true})")) == false);  // nothing differs
  CHECK(s["errors"] == json::array());
}

TEST_CASE("runs of different models are named, not a crash", "[viewer][compare]") {
  HeadlessApp h;
  h.app().open(tvis::test::file_source_for(TVIS_TEST_DIAGNOSE_RUN));
  h.app().open_compare(tvis::test::file_source_for(TVIS_TEST_GOLDEN_RUN));
  h.show_page("Compare");
  json s = compared_state(h);
  const json& v = s["view"];
  REQUIRE(v["ready"] == true);
  REQUIRE(v["problem"].is_string());
  CHECK(v["problem"].get<std::string>().rfind("runs differ in model: ", 0) == 0);
  CHECK(v["identical"] == false);
}

TEST_CASE("a second run that cannot be opened is a message", "[viewer][compare]") {
  HeadlessApp h;
  h.app().open(tvis::test::file_source_for(TVIS_TEST_DIAGNOSE_RUN));
  h.app().show_compare_error("/nowhere/run.tvis: no such file");
  h.show_page("Compare");
  h.frame(5);
  json s = h.state();
  CHECK(s["compare"]["status"] == "failed");
  REQUIRE(s["errors"].size() == 1);
  CHECK(s["errors"][0] == "compared run: /nowhere/run.tvis: no such file");
  CHECK(s["page"] == "Compare");
  CHECK(s["view"]["status"] == "failed");
  // opening another run stops comparing: the page goes away
  h.app().open(tvis::test::file_source_for(TVIS_TEST_DIAGNOSE_RUN));
  h.frame(5);
  s = h.state();
  CHECK(s["compare"].is_null());
  CHECK(s["errors"] == json::array());
  bool listed = false;
  for (const auto& p : s["pages"]) listed = listed || p == "Compare";
  CHECK_FALSE(listed);
}

TEST_CASE("the run list's Compare with shown opens the Compare page", "[viewer][compare]") {
  std::vector<tvis::viewer::RunListEntry> runs;
  const std::string a = TVIS_TEST_DIAGNOSE_RUN, b = TVIS_TEST_GOLDEN_RUN;
  runs.push_back({"20260101-000000_diagnose", [a] { return tvis::format::open_file_source(a); }});
  runs.push_back({"20250101-000000_golden", [b] { return tvis::format::open_file_source(b); }});
  HeadlessApp h;
  h.app().open_run_list(std::move(runs));
  h.frame(3);
  // nothing shown yet: nothing to compare with
  CHECK(json::parse(h.app().command(R"({"compare_row": 1})")) == false);
  REQUIRE(h.click_run_row(0));
  h.frame(3);
  REQUIRE(h.state()["run"].is_object());
  CHECK(json::parse(h.app().command(R"({"compare_row": 0})")) == true);  // the shown run itself
  json s = compared_state(h);
  CHECK(s["page"] == "Compare");
  CHECK(s["compare"]["status"] == "open");
  CHECK(s["view"]["identical"] == true);
  CHECK(json::parse(h.app().command(R"({"compare_row": 7})")) == false);
}
