// The Loss and Weights pages' model indexes (LossAnalysis, OptimizerSteps,
// Losses with several records a step) over the committed golden recording,
// and both pages drawn headless: their view, their commands and links, and
// what they say on a run without what they need (a synthetic run with no
// logits values). Exact values against a training script's own are checked
// end to end by tests/e2e/test_pages.sh.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "headless_app.h"
#include "tvis/format/byte_source.h"
#include "tvis/viewer_model/class_names.h"
#include "tvis/viewer_model/loss_call_site.h"
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
  // golden_tiny.py: batches of 8, F.cross_entropy with its defaults.
  CHECK(vw::reduction_in_words(*records[0], b) == "mean over 8 samples of −log p(target)");
  // Row-normalised: each count over its row's sum.
  const std::vector<double> norm = vw::row_normalised(*c);
  REQUIRE(norm.size() == c->counts.size());
  for (int t = 0; t < c->classes; ++t) {
    int64_t row = 0;
    for (int p = 0; p < c->classes; ++p) row += c->counts[static_cast<size_t>(t * c->classes + p)];
    for (int p = 0; p < c->classes; ++p) {
      const size_t k = static_cast<size_t>(t * c->classes + p);
      CHECK(norm[k] == (row ? static_cast<double>(c->counts[k]) / static_cast<double>(row) : 0.0));
    }
  }
}

TEST_CASE("Losses answers each record as a plain entry; the shown one, its analysis and its call site", "[viewer][model][loss]") {
  vw::RunModel model(64ull << 20);
  open_golden(model);
  for (int i = 0; i < 8 && !model.losses().ready(); ++i) {
  }
  const auto records = model.losses().all();
  const std::vector<vw::LossEntry> entries = model.losses().entries();
  REQUIRE(entries.size() == 2);
  REQUIRE(records.size() == entries.size());
  CHECK(model.losses().count() == 2);
  for (size_t k = 0; k < entries.size(); ++k) {  // copied field by field
    const vw::LossEntry& e = entries[k];
    CHECK(e.step == records[k]->step());
    CHECK(e.backward == 0);  // golden_tiny.py: one backward() a step
    CHECK(e.event == records[k]->event());
    CHECK(e.value == records[k]->value());
    CHECK(e.value_repr == records[k]->value_repr()->str());
    CHECK(e.call == records[k]->call()->str());
    CHECK(e.reduction == records[k]->reduction()->str());
    REQUIRE(records[k]->args());
    CHECK(e.args.size() == records[k]->args()->size());
    CHECK(e.followed_samples == static_cast<int64_t>(records[k]->samples()->size()));
    CHECK(model.losses().record(e) == records[k]);
  }
  // The shown record: the step's K-th, clamped; none at a step without one.
  const int step = entries[1].step;
  REQUIRE(model.losses().shown(step, 0));
  CHECK(model.losses().shown(step, 0)->event == entries[1].event);
  CHECK(model.losses().shown(step, 5)->event == entries[1].event);
  CHECK(model.losses().shown(step, -1)->event == entries[1].event);
  CHECK_FALSE(model.losses().shown(99, 0));
  CHECK(model.losses().entries_at_step(step).size() == 1);
  CHECK(model.losses().entries_at_step(99).empty());
  // The entry's analysis is the record's (one owner), and so are its words.
  const vw::LossBatch* b = nullptr;
  for (int i = 0; i < 8; ++i) {
    b = &model.loss_analysis().batch(entries[0]);
    if (b->state != vw::AnalysisState::Loading) break;
  }
  REQUIRE(b->state == vw::AnalysisState::Ready);
  CHECK(b == &model.loss_analysis().batch(*records[0]));
  CHECK(vw::reduction_in_words(entries[0], b) == vw::reduction_in_words(*records[0], b));
  CHECK(std::isnan(vw::loss_scale_factor(entries[0])));  // not scaled after the call
  // Its call site: the F.cross_entropy line of golden_tiny.py.
  vw::LossCallSite site;
  for (int i = 0; i < 8; ++i) {
    site = vw::loss_call_site(model, entries[0]);
    if (site.state != vw::LossCallSite::State::Loading) break;
  }
  REQUIRE(site.found());
  CHECK(site.file.find("golden_tiny.py") != std::string::npos);
  CHECK(site.line > 0);
  CHECK(site.text == "loss = F.cross_entropy(model(xb), yb)");
  // A custom loss (no recognised call) has none.
  vw::LossEntry custom = entries[0];
  custom.call.clear();
  CHECK(vw::loss_call_site(model, custom).state == vw::LossCallSite::State::None);
  custom = entries[0];
  custom.event = vw::kNoLossEvent;
  CHECK(vw::loss_call_site(model, custom).state == vw::LossCallSite::State::None);
  // The classes' names over the loss steps: golden_tiny.py's dataset names none.
  bool complete = false;
  std::map<int64_t, std::string> names;
  for (int i = 0; i < 8 && !complete; ++i) names = vw::class_names_of_losses(model, &complete);
  CHECK(complete);
  CHECK(names.empty());
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

namespace {

json page_view(tvis::test::HeadlessApp& h, int frames = 8) {
  h.frame(frames);
  return h.state()["view"];
}

}  // namespace

TEST_CASE("the Loss page's view: the reduction in words, the confusion row-normalised", "[viewer][pages][loss]") {
  tvis::test::HeadlessApp h;
  h.app().command(json{{"link", {{"page", "Loss"}, {"step", "0"}}}}.dump());
  h.app().open(tvis::test::file_source_for(TVIS_TEST_GOLDEN_RUN));
  json v = page_view(h, 16);
  REQUIRE(v["confusion"].is_array());
  CHECK(v["reduction_words"] == "mean over 8 samples of −log p(target)");
  CHECK(v["call"] == "torch.nn.functional.cross_entropy");
  CHECK(v["outer"] == "");
  CHECK(v["not_available"].empty());
  // The call site is the loss call's own line of golden_tiny.py.
  REQUIRE(v["source"].is_string());
  CHECK(v["source"].get<std::string>().find("golden_tiny.py:") != std::string::npos);
  const json& counts = v["confusion"];
  const json& norm = v["confusion_normalised"];
  REQUIRE(norm.size() == counts.size());
  for (size_t t = 0; t < counts.size(); ++t) {
    int64_t row = 0;
    for (const json& n : counts[t]) row += n.get<int64_t>();
    for (size_t p = 0; p < counts.size(); ++p)
      CHECK(norm[t][p].get<double>() == (row ? counts[t][p].get<double>() / static_cast<double>(row) : 0.0));
    // golden_tiny.py's digits have no class names: each class is its index.
    CHECK(v["confusion_labels"][t] == std::to_string(t));
  }
  CHECK(v["normalised"] == false);
  CHECK(h.app().command(json{{"confusion_normalised", true}}.dump()) == "true");
  CHECK(page_view(h, 2)["normalised"] == true);
}

TEST_CASE("Weights: All layers sorted by size and by update ratio", "[viewer][pages][weights]") {
  tvis::test::HeadlessApp h;
  h.app().command(json{{"link", {{"page", "Weights"}, {"step", "1"}}}}.dump());
  h.app().open(tvis::test::file_source_for(TVIS_TEST_GOLDEN_RUN));
  json v = page_view(h, 16);
  // golden_tiny.py: conv 4x1x3x3 (+4), fc 10x64 (+10), sorted by name first.
  const std::vector<std::string> by_name = {"conv.bias", "conv.weight", "fc.bias", "fc.weight"};
  CHECK(v["thumbnails"]["order"] == json(by_name));
  CHECK(h.app().command(json{{"weights_sort", "size"}}.dump()) == "true");
  v = page_view(h, 4);
  CHECK(v["thumbnails"]["order"] == json({"fc.weight", "conv.weight", "fc.bias", "conv.bias"}));
  // By update ratio: each parameter's own view gives its ratio; largest first.
  std::vector<std::pair<double, std::string>> ratios;
  for (const std::string& name : by_name) {
    REQUIRE(h.app().command(json{{"param", name}}.dump()) == "true");
    const json pv = page_view(h, 6);
    REQUIRE(pv["update_ratio"].is_number());
    ratios.emplace_back(pv["update_ratio"].get<double>(), name);
  }
  std::stable_sort(ratios.begin(), ratios.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  json want = json::array();
  for (const auto& r : ratios) want.push_back(r.second);
  CHECK(h.app().command(json{{"weights_sort", "update_ratio"}}.dump()) == "true");
  CHECK(page_view(h, 4)["thumbnails"]["order"] == want);
}

TEST_CASE("Weights: a parameter past --max-elems keeps its leading rows and says so", "[viewer][pages][weights]") {
  // golden_v1.tvis was recorded with --max-elems 256: fc.weight [10, 64] is
  // 640 values, so its leading 256 / 64 = 4 rows were kept.
  tvis::test::HeadlessApp h;
  h.app().command(json{{"link", {{"page", "Weights"}, {"step", "0"}, {"param", "fc.weight"}, {"show", "weight"}}}}.dump());
  h.app().open(tvis::test::file_source_for(TVIS_TEST_GOLDEN_RUN));
  json v = page_view(h, 16);
  REQUIRE(v["present"] == true);
  CHECK(v["shape"] == json({10, 64}));
  CHECK(v["kept"] == "leading_rows");
  CHECK(v["kept_rows"] == 256 / 64);
  CHECK(v["values"] == "drawn");
  REQUIRE(v["kept_note"].is_string());
  const std::string note = v["kept_note"];
  CHECK(note.find("--max-elems") != std::string::npos);
  CHECK(note.find("leading 4 of 10 rows") != std::string::npos);
  // A small parameter is kept whole and has no note.
  REQUIRE(h.app().command(json{{"param", "conv.weight"}}.dump()) == "true");
  v = page_view(h, 6);
  CHECK(v["kept"] == "full");
  CHECK(v["kept_note"].is_null());
}

TEST_CASE("Loss: a sample row the recorder did not follow says why on a click", "[viewer][pages][loss]") {
  // golden_v1.tvis: --samples 2 over batches of 8, so rows 0 and 1 are followed.
  tvis::test::HeadlessApp h;
  h.app().command(json{{"link", {{"page", "Loss"}, {"step", "0"}}}}.dump());
  h.app().open(tvis::test::file_source_for(TVIS_TEST_GOLDEN_RUN));
  json v = page_view(h, 16);
  REQUIRE(v["analysis"] == "ready");
  CHECK(v["unfollowed"].is_null());
  CHECK(h.app().command(json{{"click_row", 99}}.dump()) == "false");
  CHECK(h.app().command(json{{"click_row", 5}}.dump()) == "true");
  v = page_view(h, 2);
  REQUIRE(v["unfollowed"].is_object());
  CHECK(v["unfollowed"]["row"] == 5);
  const std::string why = v["unfollowed"]["why"];
  CHECK(why.find("first 2 rows") != std::string::npos);
  CHECK(why.find("--samples 6") != std::string::npos);
  CHECK(h.state()["page"] == "Loss");
  CHECK(h.app().command(json{{"click_row", 1}}.dump()) == "true");  // followed: Replay
  h.frame(3);
  CHECK(h.state()["page"] == "Replay");
}
