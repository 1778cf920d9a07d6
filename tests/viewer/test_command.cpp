// The one command entry (App::command) and the state it reports: the actions
// tests drive (select, page, panel, key, row geometry) and each page's view.
#include <catch2/catch.hpp>

#include "headless_app.h"

using tvis::test::HeadlessApp;
using nlohmann::json;

namespace {

json command(HeadlessApp& h, const json& cmd) { return json::parse(h.app().command(cmd.dump())); }

}  // namespace

TEST_CASE("select and key commands move the selection as clicks and keys do", "[viewer][command]") {
  HeadlessApp h;
  h.app().open(tvis::test::file_source_for(tvis::test::write_synthetic_run("command_select.tvis", 2)));
  h.frame(3);
  CHECK(command(h, {{"select", 5}}) == true);
  h.frame();
  CHECK(h.state()["selection"]["event"] == 5);
  CHECK(command(h, {{"key", "right"}}) == true);
  CHECK(h.state()["selection"]["event"] == 6);
  CHECK(command(h, {{"key", "left"}}) == true);
  CHECK(h.state()["selection"]["event"] == 5);
  const json first = h.state()["selection"]["sample"];
  REQUIRE(command(h, {{"key", "]"}}) == true);
  CHECK(h.state()["selection"]["sample"] != first);
  CHECK(command(h, {{"key", "q"}}) == false);
  CHECK(command(h, {{"select", -1}}) == false);
}

TEST_CASE("row geometry, pages and panels through the command entry", "[viewer][command]") {
  HeadlessApp h;
  h.app().open(tvis::test::file_source_for(tvis::test::write_synthetic_run("command_rows.tvis", 2)));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  const json rect = command(h, {{"event_row_rect", 1}});
  REQUIRE(rect.is_array());
  float r[4];
  REQUIRE(h.app().event_row_rect(1, r));
  CHECK(rect[1].get<float>() == r[1]);
  CHECK(command(h, {{"event_row_loaded", 1}}) == true);
  CHECK(command(h, {{"event_row_rect", 1u << 30}}).is_null());
  CHECK(command(h, {{"run_row_rect", 0}}).is_null());  // no run list shown

  CHECK(command(h, {{"page", "Explore"}}) == true);
  CHECK(command(h, {{"page", "Nope"}}) == false);
  CHECK(command(h, {{"panel", "Timeline"}}) == true);
  CHECK(command(h, {{"panel", "Nope"}}) == false);
  CHECK(command(h, {{"panels", true}}) == json({"Steps", "Timeline", "Source", "Layers", "Samples"}));
  CHECK(command(h, {{"frobnicate", 1}}).contains("error"));
  CHECK(command(h, json::array()).contains("error"));
}

TEST_CASE("state's view is what the shown page reports", "[viewer][command]") {
  HeadlessApp h;
  CHECK(h.state()["view"].is_null());  // no run: no page shown
  h.app().open(tvis::test::file_source_for(tvis::test::write_synthetic_run("command_view.tvis", 2)));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  json view = h.state()["view"];
  REQUIRE(view.is_object());
  CHECK(view["event"].is_null());
  CHECK(view["step"] == 0);
  command(h, {{"select", 3}});
  CHECK(h.state()["view"]["event"] == 3);
}
