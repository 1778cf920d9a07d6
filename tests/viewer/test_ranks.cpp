// A distributed run in the viewer (viewer/src/ranks.h, viewer_model/
// rank_set.h, rank_comparison.h): rank identities and what is wrong with a
// run's rank files, the largest |difference| between ranks against
// hand-worked values, and the App over synthetic rank files: one run with a
// rank picker, every rank's loss curve as written, a zero weight difference
// for identical replicas and the exact non-zero one when a rank's weights
// differ, and a rank switch that keeps the page, the step and the parameter.
// The real DDP recording is checked end to end by tests/e2e/test_ranks.sh.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <unistd.h>

#include "headless_app.h"
#include "scratch_dir.h"
#include "synthetic_run.h"
#include "tvis/format/byte_source.h"
#include "tvis/viewer_model/rank_comparison.h"
#include "tvis/viewer_model/rank_set.h"
#include "tvis/viewer_model/run_model.h"

namespace vw = tvis::viewer;
using nlohmann::json;

namespace {

vw::RankFileCheck check(int rank, int recorded, int world) {
  vw::RankFileCheck f;
  f.rank = rank;
  f.name = rank == 0 ? "run.tvis" : "rank" + std::to_string(rank) + ".tvis";
  f.recorded.rank = recorded;
  f.recorded.world_size = world;
  return f;
}

// A synthetic rank file in this test's folder: `seed` decides its weights
// and losses; its RunMeta records rank `recorded` of a world of 2.
struct RankFile {
  std::string path;
  std::vector<double> losses;
};
RankFile write_rank_file(const std::string& name, uint64_t seed, int recorded) {
  namespace fs = std::filesystem;
  const fs::path dir = tvis::test::scratch_dir() / "ranks";
  fs::create_directories(dir);
  tvis::synth::SynthOptions o;
  o.steps = 3;
  o.tiny = true;
  o.seed = seed;
  o.meta_options = {{"rank", std::to_string(recorded)}, {"world_size", "2"}, {"launcher", "torchrun"}};
  const std::string path = (dir / name).string();
  auto report = tvis::synth::write_synthetic_run(path, o);
  REQUIRE(report.ok());
  return {path, report.value().losses};
}

vw::RankSource rank_source(int rank, const std::string& path) {
  return {rank, std::filesystem::path(path).filename().string(),
          [path] { return tvis::format::open_file_source(path); }};
}

// Frames until `done(state)` holds (at most 60).
json frames_until(tvis::test::HeadlessApp& h, const std::function<bool(const json&)>& done) {
  json st;
  for (int i = 0; i < 60; ++i) {
    h.frame();
    st = h.state();
    if (done(st)) break;
  }
  return st;
}

bool across_ready(const json& st) {
  return st["view"].is_object() && st["view"]["across_ranks"].is_object() &&
         st["view"]["across_ranks"]["state"] == "ready";
}

// max_i |a_i - b_i| of the kept values of `param`'s weight at `step` in two files, read independently.
double expected_difference(const std::string& a, const std::string& b, const std::string& param, int step) {
  double worst = 0;
  std::vector<std::vector<double>> values;
  for (const std::string& path : {a, b}) {
    vw::RunModel m(16ull << 20);
    m.open(tvis::format::open_file_source(path).value());
    REQUIRE(m.status() == vw::RunStatus::Open);
    const tvis::schema::ParamRecord* p = m.optimizer_steps().param(step, param);
    REQUIRE(p);
    bool done = true;
    auto ref = m.tensors().by_id(m, p->after() >= 0 ? uint64_t(p->after()) : p->weight(), step, &done);
    REQUIRE(ref);
    vw::TensorValues tv;
    std::string error;
    REQUIRE(m.tensors().read_values(m, *ref.record(), &tv, &error) == vw::ChunkRead::Ready);
    REQUIRE(error.empty());
    values.push_back(tv.values);
  }
  REQUIRE(values[0].size() == values[1].size());
  for (size_t i = 0; i < values[0].size(); ++i) worst = std::max(worst, std::fabs(values[0][i] - values[1][i]));
  return worst;
}

}  // namespace

TEST_CASE("rank identities come from the RunMeta options; rank_problems names what does not fit", "[viewer][ranks]") {
  vw::RunInfo info;
  info.hostname = "node7";
  info.options = {{"max_elems", "65536"}, {"rank", "1"}, {"world_size", "4"}, {"launcher", "torchrun"}, {"backend", "'gloo'"}};
  const vw::RankIdentity id = vw::rank_identity_of(info);
  CHECK(id.rank == 1);
  CHECK(id.world_size == 4);
  CHECK(id.launcher == "torchrun");
  CHECK(id.backend == "gloo");
  CHECK(id.hostname == "node7");
  CHECK(vw::rank_identity_of(vw::RunInfo{}).rank == -1);  // a single-process run records none

  CHECK(vw::rank_problems({check(0, 0, 2), check(1, 1, 2)}).empty());
  CHECK(vw::rank_problems({check(0, -1, -1), check(1, -1, -1)}).empty());  // nothing recorded: taken as named
  CHECK(vw::rank_problems({check(0, 0, 2), check(1, 3, 2)}) ==
        std::vector<std::string>{"rank1.tvis records rank 3, not rank 1"});
  CHECK(vw::rank_problems({check(0, 0, 3), check(1, 1, 3)}) ==
        std::vector<std::string>{"no file of rank 2 (world size 3)"});
  const auto beyond = vw::rank_problems({check(0, 0, 2), check(1, 1, 2), check(2, 2, 2)});
  CHECK(beyond == std::vector<std::string>{"a file of rank 2 lies beyond the world size of 2"});
  const auto disagree = vw::rank_problems({check(0, 0, 2), check(1, 1, 3)});
  REQUIRE(!disagree.empty());
  CHECK(disagree.front() == "rank1.tvis records a world size of 3, the others 2");
}

TEST_CASE("values_difference is the largest |a - b| over elements and pairs of ranks", "[viewer][ranks]") {
  vw::TensorValues a{{1.0, 2.0, 3.0, -4.0}, {2, 2}, false};
  vw::TensorValues same = a;
  vw::ValuesDifference d = vw::values_difference({&a, &same});
  CHECK(d.comparable);
  CHECK(d.max_abs == 0.0);
  CHECK(d.differing == 0);
  CHECK(d.elements == 4);

  vw::TensorValues b{{1.0, 2.5, 3.0, -4.0}, {2, 2}, false};
  vw::TensorValues c{{1.0, 2.0, 3.0, -4.75}, {2, 2}, false};
  d = vw::values_difference({&a, &b, &c});
  CHECK(d.max_abs == 0.75);  // |-4 - -4.75|, larger than b's 0.5 and |2.5 - 2| between b and c
  CHECK(d.at == 3);
  CHECK(d.differing == 2);

  vw::TensorValues nan_a{{std::nan(""), 1.0}, {2}, false}, nan_b{{std::nan(""), 1.0}, {2}, false};
  CHECK(vw::values_difference({&nan_a, &nan_b}).max_abs == 0.0);
  vw::TensorValues num{{0.0, 1.0}, {2}, false};
  CHECK(std::isinf(vw::values_difference({&nan_a, &num}).max_abs));

  vw::TensorValues other_shape{{1.0, 2.0, 3.0, -4.0}, {4}, false};
  d = vw::values_difference({&a, &other_shape});
  CHECK_FALSE(d.comparable);
  CHECK(d.why == "the ranks' tensors differ in shape or in the elements kept");
  CHECK_FALSE(vw::values_difference({&a}).comparable);
}

TEST_CASE("the App opens rank files as one run: picker, per-rank losses, weight difference", "[viewer][ranks]") {
  const RankFile r0 = write_rank_file("run.tvis", 1, 0);
  const RankFile r1_same = write_rank_file("rank1_same.tvis", 1, 1);   // a replica: the same weights
  const RankFile r1_other = write_rank_file("rank1_other.tvis", 2, 1);  // weights (and losses) that differ
  REQUIRE(r0.losses == r1_same.losses);
  REQUIRE(r0.losses != r1_other.losses);

  SECTION("identical replicas: every rank's curve, a zero difference") {
    tvis::test::HeadlessApp h;
    h.app().open_ranks({rank_source(0, r0.path), rank_source(1, r1_same.path)}, 0);
    h.app().command(R"({"link": {"page": "Weights", "param": "fc.weight", "step": 1}})");
    const json st = frames_until(h, across_ready);
    REQUIRE(st["run"].is_object());
    CHECK(st["run"]["rank"] == 0);
    CHECK(st["run"]["ranks"] == 2);
    CHECK(st["run"]["rank_problems"] == json::array());
    REQUIRE(across_ready(st));
    const json& a = st["view"]["across_ranks"];
    CHECK(a["param"] == "fc.weight");
    CHECK(a["step"] == 1);
    CHECK(a["comparable"] == true);
    CHECK(a["max_abs_difference"] == 0.0);
    CHECK(a["differing"] == 0);
    CHECK(a["ranks"].size() == 2);
    CHECK(a["ranks"][0]["l2"] == a["ranks"][1]["l2"]);
  }

  SECTION("a rank whose weights differ: the exact largest difference; losses per rank as written") {
    tvis::test::HeadlessApp h;
    h.app().open_ranks({rank_source(0, r0.path), rank_source(1, r1_other.path)}, 0);
    h.app().command(R"({"link": {"page": "Weights", "param": "fc.weight", "step": 1}})");
    json st = frames_until(h, across_ready);
    REQUIRE(across_ready(st));
    const double expected = expected_difference(r0.path, r1_other.path, "fc.weight", 1);
    REQUIRE(expected > 0);
    CHECK(st["view"]["across_ranks"]["max_abs_difference"].get<double>() == expected);
    CHECK(st["view"]["across_ranks"]["differing"].get<int>() > 0);

    h.app().command(R"({"page": "Loss"})");
    st = frames_until(h, [](const json& s) {
      return s["page"] == "Loss" && s["view"]["rank_losses"].size() == 2 && s["view"]["rank_losses"][1]["ready"] == true;
    });
    REQUIRE(st["view"]["rank_losses"].size() == 2);
    CHECK(st["view"]["rank_losses"][0]["rank"] == 0);
    CHECK(st["view"]["rank_losses"][0]["losses"].get<std::vector<double>>() == r0.losses);
    CHECK(st["view"]["rank_losses"][1]["rank"] == 1);
    CHECK(st["view"]["rank_losses"][1]["losses"].get<std::vector<double>>() == r1_other.losses);
  }

  SECTION("switching rank keeps the page, the step and the parameter") {
    tvis::test::HeadlessApp h;
    h.app().open_ranks({rank_source(0, r0.path), rank_source(1, r1_other.path)}, 0);
    h.app().command(R"({"link": {"page": "Weights", "param": "conv1.weight", "step": 2, "show": "grad"}})");
    frames_until(h, across_ready);
    CHECK(h.app().command(R"({"rank": 1})") == "true");
    const json st = frames_until(h, [](const json& s) { return s["run"].is_object() && s["page"] == "Weights"; });
    REQUIRE(st["run"].is_object());
    CHECK(st["run"]["rank"] == 1);
    CHECK(st["run"]["source"].get<std::string>().find("rank1_other.tvis") != std::string::npos);
    CHECK(st["page"] == "Weights");
    CHECK(st["view"]["step"] == 2);
    CHECK(st["view"]["param"] == "conv1.weight");
    CHECK(st["view"]["show"] == "grad");
    CHECK(h.app().command(R"({"rank": 5})") == "false");  // no such rank
  }

  SECTION("the link key rank=K opens that rank; a file recording another rank is named") {
    const RankFile wrong = write_rank_file("rank1_wrong.tvis", 1, 3);
    tvis::test::HeadlessApp h;
    h.app().open_ranks({rank_source(0, r0.path), rank_source(1, wrong.path)}, 0);
    h.app().command(R"({"link": {"rank": "1", "page": "Loss"}})");
    const json st = frames_until(h, [](const json& s) { return s["run"].is_object() && s["run"]["rank"] == 1 && s["page"] == "Loss"; });
    CHECK(st["run"]["rank"] == 1);
    CHECK(st["page"] == "Loss");
    CHECK(st["run"]["rank_problems"] == json::array({"rank1_wrong.tvis records rank 3, not rank 1"}));
  }

  SECTION("a run of one file: rank 0 of 1, no comparison") {
    tvis::test::HeadlessApp h;
    h.app().open(tvis::test::file_source_for(r1_same.path));
    h.app().command(R"({"link": {"page": "Weights"}})");
    const json st = frames_until(h, [](const json& s) { return s["run"].is_object() && s["page"] == "Weights"; });
    CHECK(st["run"]["rank"] == 1);  // as its metadata records
    CHECK(st["run"]["ranks"] == 1);
    CHECK(st["view"]["across_ranks"].is_null());
  }
}

TEST_CASE("a run list entry with rank files is listed once with its ranks", "[viewer][ranks]") {
  const RankFile r0 = write_rank_file("list_run.tvis", 1, 0);
  const RankFile r1 = write_rank_file("list_rank1.tvis", 1, 1);
  std::vector<vw::RunListEntry> runs;
  runs.push_back({"20261203-120000_ddp_train_abcdef", [p = r0.path] { return tvis::format::open_file_source(p); },
                  {rank_source(0, r0.path), rank_source(1, r1.path)}});
  runs.push_back({"20261203-110000_train_123456", [p = r0.path] { return tvis::format::open_file_source(p); }, {}});
  tvis::test::HeadlessApp h;
  h.app().open_run_list(std::move(runs));
  h.frame(2);
  json st = h.state();
  REQUIRE(st["runs"].size() == 2);
  CHECK(st["runs"][0]["ranks"] == 2);
  CHECK(st["runs"][1]["ranks"] == 1);
  REQUIRE(h.click_run_row(0));
  st = frames_until(h, [](const json& s) { return s["run"].is_object(); });
  CHECK(st["run"]["ranks"] == 2);
  CHECK(st["run"]["rank"] == 0);
}
