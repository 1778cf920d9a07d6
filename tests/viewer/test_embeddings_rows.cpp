// The Embeddings page over records that carry every batch row (issue 34):
// a synthetic run (tools/synth, batch_embeddings: an 8-row batch, followed
// samples 0..3 at rows 1, 3, 5, 7, rows labelled (row + step) % 3) shows one
// point per row per step, the followed ones marked with their sample id;
// hovering a point names it, a click on a followed one opens Replay at its
// step on that sample, a click on another row leaves the page. Records
// without rows (the plain synthetic run, as files written before) show the
// followed samples alone.
#include <catch2/catch.hpp>

#include <imgui.h>

#include <filesystem>
#include <unistd.h>

#include "headless_app.h"
#include "scratch_dir.h"
#include "synthetic_run.h"

using nlohmann::json;

namespace {

constexpr int kSteps = 3, kRows = 8, kFollowed = 4;

std::string write_run_with_rows(const std::string& name) {
  const std::string path = tvis::test::scratch_path(name);
  tvis::synth::SynthOptions o;
  o.steps = kSteps;
  o.batch_embeddings = true;
  REQUIRE(tvis::synth::write_synthetic_run(path, o).ok());
  return path;
}

json embeddings_view(tvis::test::HeadlessApp& h) {
  REQUIRE(h.app().command(json{{"page", "Embeddings"}}.dump()) == "true");
  h.frame(20);
  const json s = h.state();
  REQUIRE(s["insight"] == "Embeddings");
  REQUIRE(s["errors"].empty());
  return s["view"];
}

// Moves the mouse onto point `i` of the view and returns the next view.
json hover(tvis::test::HeadlessApp& h, const json& v, int i) {
  ImGui::GetIO().MousePos = ImVec2(v["screen"][i][0].get<float>(), v["screen"][i][1].get<float>());
  h.frame(2);
  return h.state()["view"];
}

// Clicks point `i` of the view (press and release over it).
void click(tvis::test::HeadlessApp& h, const json& v, int i) {
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2(v["screen"][i][0].get<float>(), v["screen"][i][1].get<float>());
  h.frame();
  io.MouseDown[0] = true;
  h.frame();
  io.MouseDown[0] = false;
  h.frame();
  io.MousePos = ImVec2(-1, -1);
}

}  // namespace

TEST_CASE("every batch row is a point; followed samples carry their ids", "[viewer][insights][embeddings]") {
  tvis::test::HeadlessApp h;
  h.app().open(tvis::test::file_source_for(write_run_with_rows("embedding_rows")));
  h.frame(10);
  const json v = embeddings_view(h);
  CHECK(v["module"] == "layer1");
  CHECK(v["count"] == kRows * kSteps);
  CHECK(v["followed_count"] == kFollowed * kSteps);
  REQUIRE(v["points"].size() == static_cast<size_t>(kRows * kSteps));
  for (int i = 0; i < kRows * kSteps; ++i) {
    const int step = i / kRows, row = i % kRows;
    INFO("point " << i);
    CHECK(v["steps"][i] == step);
    CHECK(v["rows"][i] == row);
    CHECK(v["samples"][i] == (row % 2 == 1 ? row / 2 : -1));  // rows 1, 3, 5, 7 follow samples 0..3
    CHECK(v["labels"][i] == (row + step) % 3);
  }
  CHECK(v["screen"].size() == v["points"].size());
}

TEST_CASE("hover names a row; a click on a followed one opens Replay at its step and sample",
          "[viewer][insights][embeddings]") {
  tvis::test::HeadlessApp h;
  h.app().open(tvis::test::file_source_for(write_run_with_rows("embedding_rows_click")));
  h.frame(10);
  json v = embeddings_view(h);
  // A row no sample followed: hovered, and a click stays on the page.
  const int other = 1 * kRows + 2;  // step 1, row 2
  REQUIRE(v["samples"][other] == -1);
  v = hover(h, v, other);
  REQUIRE(v["hovered"] == other);
  click(h, v, other);
  h.frame(2);
  CHECK(h.state()["page"] == "Insights");
  // Followed sample 2 (row 5) at step 2.
  v = embeddings_view(h);
  const int followed = 2 * kRows + 5;
  REQUIRE(v["samples"][followed] == 2);
  v = hover(h, v, followed);
  REQUIRE(v["hovered"] == followed);
  click(h, v, followed);
  h.frame(10);
  const json s = h.state();
  CHECK(s["page"] == "Replay");
  CHECK(s["view"]["step"] == 2);
  CHECK(s["view"]["sample"] == 2);
}

TEST_CASE("records without rows (older files) show the followed samples alone", "[viewer][insights][embeddings]") {
  tvis::test::HeadlessApp h;
  h.app().open(tvis::test::file_source_for(tvis::test::write_synthetic_run("embedding_followed_only", kSteps)));
  h.frame(10);
  const json v = embeddings_view(h);
  CHECK(v["count"] == kFollowed * kSteps);
  CHECK(v["followed_count"] == kFollowed * kSteps);
  CHECK(v["samples"] == json({0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  CHECK(v["rows"] == json(std::vector<int>(kFollowed * kSteps, -1)));
}
