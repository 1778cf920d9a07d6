// The Loss and Weights pages' model indexes (LossAnalysis, OptimizerSteps,
// Losses with several records a step) over the committed golden recording,
// and both pages drawn headless: their view, their commands and links, and
// what they say on a run without what they need (a synthetic run with no
// logits values). Exact values against a training script's own are checked
// end to end by tests/e2e/test_pages.sh.
#include <catch2/catch.hpp>

#include <cmath>

#include "headless_app.h"
#include "tvis/format/byte_source.h"
#include "tvis/viewer_model/run_model.h"

namespace vw = tvis::viewer;
using nlohmann::json;

namespace {

void open_golden(vw::RunModel& model) {
  auto source = tvis::format::open_file_source(TVIS_TEST_GOLDEN_RUN);
  REQUIRE(source.ok());
  model.open(source.value());
  REQUIRE(model.status() == vw::RunStatus::Open);
}

}  // namespace

TEST_CASE("LossAnalysis recomputes every sample of a recorded cross_entropy batch", "[viewer][model][loss]") {
  vw::RunModel model(64ull << 20);
  open_golden(model);
  for (int i = 0; i < 8 && !model.losses().ready(); ++i) {
  }
  const auto records = model.losses().all();
  REQUIRE(records.size() == 2);
  const vw::LossBatch* b = nullptr;
  for (int i = 0; i < 8; ++i) {
    b = &model.loss_analysis().batch(*records[0]);
    if (b->state != vw::AnalysisState::Loading) break;
  }
  REQUIRE(b->state == vw::AnalysisState::Ready);
  CHECK(b->function == "cross_entropy");
  CHECK(b->rows.size() == static_cast<size_t>(b->rows_total));
  // Worst first; every row's figures agree with each other.
  for (size_t k = 1; k < b->worst.size(); ++k) CHECK(b->rows[b->worst[k - 1]].loss >= b->rows[b->worst[k]].loss);
  for (const auto& r : b->rows) {
    CHECK(r.p_target == Approx(std::exp(-r.neg_log_p)));
    CHECK(r.loss == r.neg_log_p);  // no class weights, no smoothing
  }
  // The recorder's own figures for the followed rows agree with the recomputed ones.
  REQUIRE(records[0]->samples());
  for (const auto* sl : *records[0]->samples())
    for (const auto& r : b->rows)
      if (r.row == sl->batch_row()) {
        CHECK(r.followed);
        CHECK(r.predicted == sl->predicted());
        CHECK(r.neg_log_p == Approx(sl->neg_log_p()).epsilon(1e-12));
      }
  // The mean of the per-sample losses is the recorded value (float32 loss).
  double sum = 0;
  for (const auto& r : b->rows) sum += r.loss;
  CHECK(sum / static_cast<double>(b->rows.size()) == Approx(records[0]->value()).epsilon(1e-6));
  const vw::Confusion* c = nullptr;
  for (int i = 0; i < 8; ++i) {
    c = &model.loss_analysis().confusion();
    if (c->state != vw::AnalysisState::Loading) break;
  }
  REQUIRE(c->state == vw::AnalysisState::Ready);
  int64_t total = 0;
  for (int64_t n : c->counts) total += n;
  CHECK(total == c->samples);
  CHECK(c->batches == 2);
  CHECK(vw::reduction_in_words(*records[0], b).find("mean over") == 0);
}

TEST_CASE("OptimizerSteps names each step's parameters and their optimizer", "[viewer][model][weights]") {
  vw::RunModel model(64ull << 20);
  open_golden(model);
  for (int i = 0; i < 8 && !model.optimizer_steps().ready(); ++i) {
  }
  REQUIRE(model.optimizer_steps().ready());
  const auto& names = model.optimizer_steps().names();
  REQUIRE(!names.empty());
  CHECK(model.optimizer_steps().steps().size() == 2);
  const auto* p = model.optimizer_steps().param(0, names[0]);
  REQUIRE(p);
  CHECK(p->update() >= 0);
  const auto* rec = model.optimizer_steps().record_of(0, names[0]);
  REQUIRE(rec);
  CHECK(rec->optimizer_class()->str() == "Adam");
  bool has_lr = false;
  for (const auto& [k, v] : model.optimizer_steps().hyper_of(0, names[0])) has_lr |= k == "lr";
  CHECK(has_lr);
  CHECK(model.optimizer_steps().param(0, "no.such.param") == nullptr);
  CHECK(model.optimizer_steps().steps_of(names[0]) == std::vector<int>{0, 1});
}

TEST_CASE("the Loss and Weights pages report their view and follow links", "[viewer][pages]") {
  tvis::test::HeadlessApp h;
  h.app().command(json{{"link", {{"page", "Weights"}, {"step", "1"}, {"param", "fc.weight"}, {"show", "update"}}}}.dump());
  h.app().open(tvis::test::file_source_for(TVIS_TEST_GOLDEN_RUN));
  h.frame(12);
  json s = h.state();
  REQUIRE(s["page"] == "Weights");
  json v = s["view"];
  CHECK(v["param"] == "fc.weight");
  CHECK(v["show"] == "update");
  CHECK(v["step"] == 1);
  CHECK(v["values"] == "drawn");
  CHECK(v["stats"].is_object());
  CHECK(v["update_ratio"].is_number());
  CHECK(h.app().command(json{{"show", "sideways"}}.dump()) == "false");
  CHECK(h.app().command(json{{"weights_tab", "All layers"}}.dump()) == "true");
  h.frame(8);
  v = h.state()["view"];
  CHECK(v["tab"] == "All layers");
  CHECK(v["thumbnails"]["drawn"].get<int>() > 0);
  CHECK(h.app().command(json{{"page", "Loss"}}.dump()) == "true");
  h.frame(8);
  s = h.state();
  REQUIRE(s["page"] == "Loss");
  v = s["view"];
  CHECK(v["losses"].size() == 2);
  CHECK(v["step"] == 1);
  CHECK(v["analysis"] == "ready");
  CHECK(v["worst"].size() > 0);
  CHECK(v["confusion"].is_array());
  CHECK(s["errors"].empty());
}

TEST_CASE("the pages say in place what a run does not hold", "[viewer][pages]") {
  // A synthetic run: logits records whose values tools/synth keeps, losses
  // named cross_entropy; its Weights page has parameters with statistics.
  const std::string path = tvis::test::write_synthetic_run("pages_synth.tvis", 2);
  tvis::test::HeadlessApp h;
  h.app().open(tvis::test::file_source_for(path));
  for (const char* page : {"Loss", "Weights"}) {
    h.app().command(json{{"page", page}}.dump());
    h.frame(10);
    const json s = h.state();
    CHECK(s["page"] == page);
    CHECK(s["errors"].empty());
    CHECK(s["view"].is_object());
  }
  // A parameter the run does not name: explained, not a crash.
  h.app().command(json{{"param", "no.such.param"}}.dump());
  h.frame(3);
  const json v = h.state()["view"];
  CHECK(v["param"] == "no.such.param");
  CHECK(v["present"] == false);
  CHECK(v["stats"].is_null());
}
