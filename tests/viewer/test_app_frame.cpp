// The application frame over synthetic runs, on a headless ImGui context:
// what is drawn and selected, error panels for bad input, lazy loading.
#include <imgui.h>

#include <algorithm>

#include <catch2/catch.hpp>

#include "headless_app.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/schema/recording_generated.h"

using tvis::test::HeadlessApp;
using nlohmann::json;

namespace {

std::shared_ptr<tvis::format::ByteSource> file_source(const std::string& path) {
  auto s = tvis::format::open_file_source(path);
  REQUIRE(s.ok());
  return s.value();
}

// The name of event `id` read straight from the file (not through the viewer).
std::string event_name(const std::string& path, uint64_t id) {
  auto reader = tvis::format::RunReader::open_sync(file_source(path));
  REQUIRE(reader.ok());
  for (const auto& c : reader.value()->chunks()) {
    if (c.info.kind != static_cast<uint16_t>(tvis::format::ChunkKind::Events)) continue;
    if (id < c.info.event_first || id > c.info.event_last) continue;
    auto chunk = reader.value()->read_chunk_sync(c.ordinal);
    REQUIRE(chunk.ok());
    for (const auto* e : *chunk.value()->root()->body_as_EventBatch()->events())
      if (e->id() == id) return e->name()->str();
  }
  FAIL("event not found");
  return {};
}

uint64_t event_count(const std::string& path) {
  auto reader = tvis::format::RunReader::open_sync(file_source(path));
  REQUIRE(reader.ok());
  uint64_t n = 0;
  for (const auto& c : reader.value()->chunks())
    if (c.info.kind == static_cast<uint16_t>(tvis::format::ChunkKind::Events)) n = std::max(n, c.info.event_last + 1);
  return n;
}

}  // namespace

TEST_CASE("a run opens and Explore draws its first events, virtualized", "[viewer][app]") {
  const std::string path = tvis::test::write_synthetic_run("open.tvis", 3);
  HeadlessApp h;
  h.app().open(file_source(path));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  json s = h.state();
  REQUIRE(s["run"].is_object());
  const std::string source = s["run"]["source"];
  CHECK(source.size() >= 9);
  CHECK(source.substr(source.size() - 9) == "open.tvis");
  CHECK(s["run"]["steps"] == 3);
  CHECK(s["run"]["events"] == event_count(path));
  CHECK(s["page"] == "Explore");
  CHECK(s["pages"].front() == "Replay");  // the default page, first tab
  CHECK(std::find(s["pages"].begin(), s["pages"].end(), "Explore") != s["pages"].end());
  CHECK(s["insights"] == json::array({"Attention", "Grad-CAM", "Embeddings"}));  // the synthetic run has every insight record
  CHECK(s["selection"].is_null());
  CHECK(s["errors"] == json::array());
  CHECK(s["runs"].is_null());
  CHECK(s["frame_ms"]["median"].get<double>() == Approx(1.0));
  CHECK(h.drawn_vertices() > 1000);

  float r[4];
  CHECK(h.app().event_row_rect(0, r));
  CHECK(h.app().event_row_rect(5, r));
  const uint64_t last = s["run"]["events"].get<uint64_t>() - 1;
  CHECK_FALSE(h.app().event_row_rect(last, r));  // far below: not drawn (ImGuiListClipper)
}

TEST_CASE("clicking a row selects that event; left/right step through events", "[viewer][app]") {
  const std::string path = tvis::test::write_synthetic_run("select.tvis", 2);
  HeadlessApp h;
  h.app().open(file_source(path));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  REQUIRE(h.click_event_row(5));
  json s = h.state();
  REQUIRE(s["selection"].is_object());
  CHECK(s["selection"]["event"] == 5);
  CHECK(s["selection"]["name"] == event_name(path, 5));

  h.press_key(ImGuiKey_RightArrow);
  CHECK(h.state()["selection"]["event"] == 6);
  CHECK(h.state()["selection"]["name"] == event_name(path, 6));
  h.press_key(ImGuiKey_LeftArrow);
  h.press_key(ImGuiKey_LeftArrow);
  CHECK(h.state()["selection"]["event"] == 4);
}

TEST_CASE("stepping far down scrolls the selected row into view", "[viewer][app]") {
  const std::string path = tvis::test::write_synthetic_run("scroll.tvis", 3);
  HeadlessApp h;
  h.app().open(file_source(path));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(2);
  REQUIRE(h.click_event_row(0));
  for (int i = 0; i < 120; ++i) h.press_key(ImGuiKey_RightArrow);
  CHECK(h.state()["selection"]["event"] == 120);
  h.frame(2);
  float r[4];
  CHECK_FALSE(h.app().event_row_rect(30, r));  // scrolled away
  REQUIRE(h.app().event_row_rect(120, r));
  CHECK(r[1] >= 0);  // and on screen
  CHECK(r[3] <= 900);
}

TEST_CASE("[ and ] switch the followed sample", "[viewer][app]") {
  const std::string path = tvis::test::write_synthetic_run("samples.tvis", 2);
  HeadlessApp h;
  h.app().open(file_source(path));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  REQUIRE(h.click_event_row(1));
  json first = h.state()["selection"];
  REQUIRE(first.contains("sample"));
  h.type_char(']');
  json second = h.state()["selection"];
  CHECK(second["sample"] != first["sample"]);
  h.type_char('[');
  CHECK(h.state()["selection"]["sample"] == first["sample"]);
}

TEST_CASE("an asynchronous source: frames never wait, rows load later", "[viewer][app]") {
  const std::string path = tvis::test::write_synthetic_run("async.tvis", 2);
  auto deferred = std::make_shared<tvis::test::DeferredSource>(file_source(path));
  HeadlessApp h;
  h.app().open(deferred);
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame();
  CHECK(h.state()["run"].is_null());  // opening: header not answered yet
  CHECK_FALSE(h.app().settled());
  // Open needs a few round trips (header, trailer, footer); then the tree is
  // drawn, with placeholders while its chunk is in flight.
  float r[4];
  for (int i = 0; i < 8 && !h.app().event_row_rect(0, r); ++i) {
    deferred->pump();
    h.frame();
  }
  REQUIRE(h.app().event_row_rect(0, r));  // the placeholder row is drawn
  CHECK_FALSE(h.app().event_row_loaded(0));
  CHECK(h.state()["run"].is_null());  // the metadata is in flight too
  CHECK_FALSE(h.app().settled());
  // The first view's reads (metadata, first rows, ...) left together at open,
  // not one frame after another: one more answer shows the run and its rows.
  CHECK(deferred->waiting() >= 2);
  deferred->pump();
  h.frame();
  REQUIRE(h.app().settled());
  json s = h.state();
  REQUIRE(s["run"].is_object());
  CHECK(s["run"]["events"] == event_count(path));
  CHECK(h.app().event_row_loaded(0));
  CHECK(h.state()["selection"].is_null());
  REQUIRE(h.click_event_row(3));
  CHECK(h.state()["selection"]["name"] == event_name(path, 3));
}

TEST_CASE("a file that is not a run shows the reader's message", "[viewer][app][errors]") {
  const std::string path = tvis::test::write_synthetic_run("notarun.tvis", 1);
  tvis::test::write_file(path, "this is plainly not a tvis run file, just some text\n");
  HeadlessApp h;
  h.app().open(file_source(path));
  h.frame(2);
  json s = h.state();
  CHECK(s["run"].is_null());
  REQUIRE(s["errors"].size() == 1);
  CHECK_FALSE(s["errors"][0].get<std::string>().empty());
  CHECK(h.app().settled());
  CHECK(h.drawn_vertices() > 100);  // the panel is drawn, not a blank frame
}

TEST_CASE("a corrupt events chunk is named in the error strip; the rest still shows", "[viewer][app][errors]") {
  const std::string path = tvis::test::write_synthetic_run("corrupt.tvis", 2);
  // Flip a byte inside the first Events chunk's payload.
  auto reader = tvis::format::RunReader::open_sync(file_source(path));
  REQUIRE(reader.ok());
  uint64_t where = 0;
  for (const auto& c : reader.value()->chunks())
    if (c.info.kind == static_cast<uint16_t>(tvis::format::ChunkKind::Events)) {
      where = c.offset + 56 + c.compressed_size / 2;
      break;
    }
  REQUIRE(where > 0);
  std::string bytes = tvis::test::read_file(path);
  bytes[where] = static_cast<char>(bytes[where] ^ 0x5A);
  tvis::test::write_file(path, bytes);

  HeadlessApp h;
  h.app().open(file_source(path));
  h.frame(3);
  json s = h.state();
  REQUIRE(s["run"].is_object());
  REQUIRE(s["errors"].size() >= 1);
  CHECK(s["errors"][0].get<std::string>().find("events") != std::string::npos);
}

TEST_CASE("a run cut short (no footer) opens as incomplete", "[viewer][app][errors]") {
  const std::string path = tvis::test::write_synthetic_run("cut.tvis", 3, 0, /*finalize=*/false);
  HeadlessApp h;
  h.app().open(file_source(path));
  h.frame(3);
  json s = h.state();
  REQUIRE(s["run"].is_object());
  CHECK(s["run"]["events"].get<uint64_t>() > 0);
  CHECK(s["errors"] == json::array());
}

TEST_CASE("show_error (an unreachable URL) is what errors reports", "[viewer][app][errors]") {
  HeadlessApp h;
  h.frame();
  CHECK(h.state()["errors"] == json::array());
  CHECK(h.state()["run"].is_null());
  h.app().show_error("Cannot reach http://127.0.0.1:9/run.tvis: Failed to fetch");
  h.frame();
  json s = h.state();
  CHECK(s["errors"] == json::array({"Cannot reach http://127.0.0.1:9/run.tvis: Failed to fetch"}));
  CHECK(s["run"].is_null());
  CHECK(s["pages"] == json::array());
}

TEST_CASE("a runs folder shows a run list; picking a run opens it", "[viewer][app][runs]") {
  const std::string a = tvis::test::write_synthetic_run("list_a.tvis", 2);
  const std::string b = tvis::test::write_synthetic_run("list_b.tvis", 3);
  std::vector<tvis::viewer::RunListEntry> runs;
  runs.push_back({"20260101-000000_train_b", [b] { return tvis::format::open_file_source(b); }});
  runs.push_back({"20250101-000000_train_a", [a] { return tvis::format::open_file_source(a); }});
  runs.push_back({"broken", [] {
                    return tvis::format::Result<std::shared_ptr<tvis::format::ByteSource>>(
                        tvis::format::Status::error(tvis::format::ErrorCode::Io, "cannot open run.tvis"));
                  }});
  HeadlessApp h;
  h.app().open_run_list(std::move(runs));
  h.frame(3);
  json s = h.state();
  REQUIRE(s["runs"].is_array());
  REQUIRE(s["runs"].size() == 3);
  CHECK(s["runs"][0]["name"] == "20260101-000000_train_b");
  CHECK(s["runs"][0]["steps"] == 3);
  CHECK(s["runs"][1]["steps"] == 2);
  CHECK_FALSE(s["runs"][0]["script"].get<std::string>().empty());
  CHECK_FALSE(s["runs"][0]["date"].get<std::string>().empty());
  CHECK(s["run"].is_null());
  REQUIRE(s["errors"].size() == 1);
  CHECK(s["errors"][0] == "broken: cannot open run.tvis");
  // A click on the second row opens that run (train_a, 2 steps) on Replay, the default page.
  REQUIRE(h.click_run_row(1));
  h.frame(2);
  s = h.state();
  REQUIRE(s["run"].is_object());
  CHECK(s["run"]["steps"] == 2);
  CHECK(s["runs"].is_null());
  CHECK(s["page"] == "Replay");
  h.show_page("Explore");
  h.frame(2);
  CHECK(h.app().event_row_loaded(0));
}
