// The model's run indexes (viewer/model/) on their own, with no page drawn:
// losses, insights, source files and samples as a synthetic run wrote them.
#include <catch2/catch.hpp>

#include <filesystem>

#include "headless_app.h"
#include "scratch_dir.h"
#include "synthetic_run.h"
#include "tvis/viewer_model/run_model.h"

namespace vw = tvis::viewer;

namespace {

struct Written {
  std::string path;
  tvis::synth::SynthReport report;
};

Written write_run(const std::string& name, int steps) {
  namespace fs = std::filesystem;
  const fs::path dir = tvis::test::scratch_dir() / "model";
  fs::create_directories(dir);
  Written w{(dir / name).string(), {}};
  tvis::synth::SynthOptions o;
  o.steps = steps;
  auto report = tvis::synth::write_synthetic_run(w.path, o);
  REQUIRE(report.ok());
  w.report = report.value();
  return w;
}

// A synchronous file source answers in the call: a few passes index everything.
template <typename Index>
bool settle(Index& index) {
  for (int i = 0; i < 8; ++i)
    if (index.ready()) return true;
  return index.ready();
}

}  // namespace

TEST_CASE("the losses index gives each step's recorded loss, in step order", "[viewer][model]") {
  const Written w = write_run("model_losses.tvis", 4);
  vw::RunModel model(64ull << 20);
  model.open(tvis::test::file_source_for(w.path));
  REQUIRE(model.status() == vw::RunStatus::Open);
  REQUIRE(settle(model.losses()));
  const auto curve = model.losses().curve();
  REQUIRE(curve.size() == w.report.losses.size());
  for (size_t k = 0; k < curve.size(); ++k) {
    CHECK(curve[k].first == static_cast<int>(k));
    CHECK(curve[k].second == w.report.losses[k]);
  }
  REQUIRE(model.losses().at_step(2));
  CHECK(model.losses().at_step(2)->value() == w.report.losses[2]);
  CHECK(model.losses().at_step(99) == nullptr);
}

TEST_CASE("the insights index names the kinds of insight records present", "[viewer][model]") {
  const Written w = write_run("model_insights.tvis", 2);
  vw::RunModel model(64ull << 20);
  model.open(tvis::test::file_source_for(w.path));
  REQUIRE(settle(model.insights()));
  CHECK(model.insights().kinds().attention);
  CHECK(model.insights().kinds().gradcam);
  CHECK(model.insights().kinds().embeddings);
}

TEST_CASE("reopening resets every index to the new run", "[viewer][model]") {
  const Written a = write_run("model_reopen_a.tvis", 3);
  const Written b = write_run("model_reopen_b.tvis", 1);
  vw::RunModel model(64ull << 20);
  model.open(tvis::test::file_source_for(a.path));
  REQUIRE(settle(model.losses()));
  REQUIRE(settle(model.source_files()));
  CHECK(model.losses().curve().size() == 3);
  CHECK_FALSE(model.samples().followed().empty());
  model.open(tvis::test::file_source_for(b.path));
  REQUIRE(settle(model.losses()));
  CHECK(model.losses().curve().size() == 1);
  CHECK_FALSE(model.source_files().names().empty());
}
