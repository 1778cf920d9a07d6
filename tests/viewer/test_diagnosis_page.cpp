// The Diagnosis page and the top bar's badge on a real recording with a
// planted NaN (tests/data/diagnose_nan_layer.tvis): the page lists what
// analysis::diagnose finds in the same file, in the same order; a finding's
// command opens its link; a healthy run has a ready, empty list.
#include <catch2/catch.hpp>

#include "headless_app.h"
#include "tvis/analysis/diagnose.h"
#include "tvis/format/byte_source.h"
#include "tvis/format/run_reader.h"

using tvis::test::HeadlessApp;
using nlohmann::json;

namespace {

std::vector<tvis::analysis::Finding> diagnose_file(const std::string& path) {
  auto reader = tvis::format::RunReader::open_sync(tvis::test::file_source_for(path));
  REQUIRE(reader.ok());
  tvis::analysis::RunFacts facts;
  REQUIRE(tvis::analysis::load_facts(*reader.value(), facts, nullptr).is_ok());
  return tvis::analysis::diagnose(facts);
}

json ready_state(HeadlessApp& h) {
  json s;
  for (int i = 0; i < 60; ++i) {
    h.frame();
    s = h.state();
    if (s["diagnosis"]["ready"] == true) break;
  }
  return s;
}

}  // namespace

TEST_CASE("the Diagnosis page lists diagnose's findings and opens their links", "[viewer][diagnosis]") {
  const std::string path = TVIS_TEST_DIAGNOSE_RUN;
  const auto expected = diagnose_file(path);
  REQUIRE(expected.size() >= 2);
  REQUIRE(expected.front().kind == "non_finite");
  HeadlessApp h;
  h.app().open(tvis::test::file_source_for(path));
  h.show_page("Diagnosis");
  json s = ready_state(h);
  REQUIRE(s["diagnosis"]["ready"] == true);
  CHECK(s["diagnosis"]["count"] == expected.size());
  CHECK(s["diagnosis"]["errors"] == 2);  // non_finite and loss_non_finite
  CHECK(s["page"] == "Diagnosis");
  const json& view = s["view"];
  REQUIRE(view["ready"] == true);
  REQUIRE(view["findings"].size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(view["findings"][i]["kind"] == expected[i].kind);
    CHECK(view["findings"][i]["message"] == expected[i].message);
    CHECK(view["findings"][i]["severity"] == tvis::analysis::severity_name(expected[i].severity));
  }
  CHECK(view["findings"][0]["link"] == "page=Replay&step=0&phase=forward&module=broken");
  CHECK(view["findings"][0]["position"] == json({{"page", "Replay"}, {"step", 0}, {"phase", "forward"}, {"module", "broken"}}));
  CHECK(view["findings"][0]["step"] == 0);
  CHECK(view["findings"][0]["module"] == "broken");
  CHECK(view["findings"][0]["param"].is_null());
  CHECK(view["read"]["chunks"].get<int>() > 0);
  CHECK(view["problem"] == "");
  CHECK(json::parse(h.app().command(R"({"finding": 99})")) == false);
  CHECK(json::parse(h.app().command(R"({"finding": 1})")) == true);  // loss_non_finite: the Loss page, step 0
  h.frame(3);
  s = h.state();
  CHECK(s["page"] == "Loss");
  CHECK(s["view"]["step"] == 0);
  CHECK(json::parse(h.app().command(R"({"finding": 0})")) == true);
  h.frame(3);
  CHECK(h.state()["page"] == "Replay");
}

TEST_CASE("a healthy run's Diagnosis page is ready and empty", "[viewer][diagnosis]") {
  HeadlessApp h;
  h.app().open(tvis::test::file_source_for(TVIS_TEST_GOLDEN_RUN));
  json s = ready_state(h);
  REQUIRE(s["diagnosis"]["ready"] == true);  // the badge's key, without showing the page
  const auto expected = diagnose_file(TVIS_TEST_GOLDEN_RUN);
  CHECK(s["diagnosis"]["count"] == expected.size());
  h.show_page("Diagnosis");
  h.frame(2);
  CHECK(h.state()["view"]["findings"].size() == expected.size());
}
