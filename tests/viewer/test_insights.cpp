// The Insights model arithmetic (attention rollout, causal masks, PCA) against
// values worked out here by hand, bad input refused with a reason, and the
// Insights page over a synthetic run: state().insights lists the pages it has
// records for, each sub-page reports a view; the golden recording, without
// insight records, has no Insights page. Exact agreement with a
// training script's own tensors is checked by tests/e2e/test_insights.sh.
#include <catch2/catch.hpp>

#include <cmath>

#include "headless_app.h"
#include "tvis/viewer_model/attention_rollout.h"
#include "tvis/viewer_model/pca.h"

namespace vw = tvis::viewer;
using nlohmann::json;

TEST_CASE("rollout averages heads, adds the identity, renormalises rows and multiplies through depth",
          "[viewer][insights]") {
  std::string problem;
  // Layer 1: two heads [[1,0],[0.5,0.5]] and [[1,0],[0.1,0.9]] -> mean [[1,0],[0.3,0.7]].
  vw::AttentionWeights l1 = vw::attention_weights({1, 0, 0.5, 0.5, 1, 0, 0.1, 0.9}, {2, 2, 2}, &problem);
  vw::AttentionWeights l2 = vw::attention_weights({0.5, 0.5, 0.5, 0.5}, {2, 2}, &problem);
  REQUIRE(problem.empty());
  CHECK(vw::head_mean(l1)[2] == Approx(0.3));
  // Â1 = rownorm([[2,0],[0.3,1.7]]) = [[1,0],[0.15,0.85]]; Â2 = rownorm([[1.5,.5],[.5,1.5]]) = [[.75,.25],[.25,.75]].
  const std::vector<double> r = vw::attention_rollout({&l1, &l2}, &problem);
  REQUIRE(r.size() == 4);
  CHECK(r[0] == Approx(0.75 * 1 + 0.25 * 0.15));
  CHECK(r[1] == Approx(0.25 * 0.85));
  CHECK(r[2] == Approx(0.25 * 1 + 0.75 * 0.15));
  CHECK(r[3] == Approx(0.75 * 0.85));
  CHECK(r[0] + r[1] == Approx(1.0));  // rows stay distributions
  // One layer: just Â1.
  CHECK(vw::attention_rollout({&l1}, &problem)[2] == Approx(0.15));
  CHECK(vw::is_causal(vw::head_mean(l1), 2));
  CHECK_FALSE(vw::is_causal(vw::head_mean(l2), 2));
}

TEST_CASE("rollout and attention weights refuse what they cannot use, with a reason", "[viewer][insights]") {
  std::string problem;
  vw::attention_weights({1, 2, 3}, {2, 2}, &problem);
  CHECK(problem.find("fewer") != std::string::npos);
  problem.clear();
  vw::attention_weights({1}, {1, 1, 1, 1}, &problem);
  CHECK(problem.find("rank 4") != std::string::npos);
  problem.clear();
  vw::AttentionWeights a = vw::attention_weights(std::vector<double>(4, 0.5), {2, 2}, &problem);
  vw::AttentionWeights b = vw::attention_weights(std::vector<double>(9, 1.0 / 3), {3, 3}, &problem);
  CHECK(vw::attention_rollout({&a, &b}, &problem).empty());
  CHECK(problem.find("square maps of one size") != std::string::npos);
  problem.clear();
  CHECK(vw::attention_rollout({}, &problem).empty());
  CHECK_FALSE(problem.empty());
}

TEST_CASE("a patch grid: n^2 tokens or [CLS] + n^2; where a token looks, [CLS]'s column left out", "[viewer][insights]") {
  bool cls = true;
  CHECK(vw::patch_grid_side(16, &cls) == 4);
  CHECK_FALSE(cls);
  CHECK(vw::patch_grid_side(17, &cls) == 4);
  CHECK(cls);
  CHECK(vw::patch_grid_side(18, &cls) == 0);
  CHECK(vw::patch_grid_side(1, &cls) == 0);  // a single token is no grid
  // T = 5: [CLS] and a 2 x 2 grid; row q holds 10 q + s at column s.
  std::vector<double> square(25);
  for (int q = 0; q < 5; ++q)
    for (int s = 0; s < 5; ++s) square[q * 5 + s] = 10 * q + s;
  CHECK(vw::query_row_on_grid(square, 5, 0, 2, true) == std::vector<double>{1, 2, 3, 4});
  CHECK(vw::query_row_on_grid(square, 5, 3, 2, true) == std::vector<double>{31, 32, 33, 34});
  const std::vector<double> no_cls(square.begin(), square.begin() + 16);  // T = 4, row q at 4 q
  CHECK(vw::query_row_on_grid(no_cls, 4, 1, 2, false) == std::vector<double>{4, 10, 11, 12});
  CHECK(vw::query_row_on_grid(square, 5, 5, 2, true).empty());  // no such token
  CHECK(vw::query_row_on_grid(square, 5, 0, 3, true).empty());  // T is not 3^2 + 1
}

TEST_CASE("PCA of points on a line and in a plane: coordinates, variance shares, signs", "[viewer][insights]") {
  // Points along (1, 2, 2)/3 at t = -2, -1, 0, 1, 2 (+ 5 offset): one direction, all the variance.
  std::vector<double> x;
  for (int t = -2; t <= 2; ++t)
    for (double c : {1.0, 2.0, 2.0}) x.push_back(5 + t * c / 3);
  vw::Pca2 p = vw::pca2(x, 5, 3);
  REQUIRE(p.problem.empty());
  CHECK(p.explained[0] == Approx(1.0));
  CHECK(p.explained[1] == Approx(0.0).margin(1e-12));
  for (int i = 0; i < 5; ++i) CHECK(std::abs(p.points[i * 2]) == Approx(std::abs(i - 2.0)));
  CHECK(std::max(p.points[0], p.points[8]) == Approx(2.0));  // the largest |coordinate| is positive
  // A plane: x spread 3, y spread 1 -> shares 9/10 and 1/10.
  const std::vector<double> plane = {3, 0, -3, 0, 0, 1, 0, -1};
  p = vw::pca2(plane, 4, 2);
  CHECK(p.explained[0] == Approx(0.9));
  CHECK(p.explained[1] == Approx(0.1));
  CHECK(p.points[0] == Approx(3.0));
  CHECK(std::abs(p.points[5]) == Approx(1.0));
  // More dims than points takes the other path: same answer.
  std::vector<double> wide;
  for (int i = 0; i < 4; ++i) {
    wide.push_back(plane[i * 2]);
    wide.push_back(plane[i * 2 + 1]);
    for (int k = 0; k < 6; ++k) wide.push_back(0);
  }
  const vw::Pca2 q = vw::pca2(wide, 4, 8);
  for (int i = 0; i < 8; ++i) CHECK(q.points[i] == Approx(p.points[i]).margin(1e-9));
}

TEST_CASE("PCA refuses too few points, short input and non-finite values", "[viewer][insights]") {
  CHECK_FALSE(vw::pca2({1, 2}, 1, 2).problem.empty());
  CHECK_FALSE(vw::pca2({1, 2, 3}, 2, 2).problem.empty());
  CHECK(vw::pca2({1, NAN, 3, 4}, 2, 2).problem.find("non-finite") != std::string::npos);
}

TEST_CASE("the Insights page lists and shows a synthetic run's insight pages", "[viewer][insights]") {
  tvis::test::HeadlessApp h;
  h.app().open(tvis::test::file_source_for(tvis::test::write_synthetic_run("insights", 2)));
  h.frame(30);
  json s = h.state();
  const json insights = s["insights"];
  REQUIRE(insights.is_array());
  CHECK_FALSE(insights.empty());
  CHECK(std::find(s["pages"].begin(), s["pages"].end(), "Insights") != s["pages"].end());
  CHECK(s["insight"].is_null());
  // tools/synth writes one library attention record (step 0): named, as recorded.
  CHECK(s["library_attention"] == json::parse(R"([{"module": "blocks.0.attn", "kind": "nn.MultiheadAttention"}])"));
  for (const auto& name : insights) {
    REQUIRE(h.app().command(json{{"page", name}}.dump()) == "true");
    h.frame(20);
    s = h.state();
    CHECK(s["page"] == "Insights");
    CHECK(s["insight"] == name);
    CHECK(s["errors"].empty());
    CHECK(s["view"].is_object());
  }
  CHECK(h.app().command(json{{"page", "Nonsense"}}.dump()) == "false");
}

TEST_CASE("insight pages load from an asynchronous source after another page drew first", "[viewer][insights]") {
  // As in the browser: reads answer later. Replay (the default page) draws
  // first and spends its frame's tensor-chunk loads; each insight page must
  // still get its records in later frames (a bug once left Embeddings
  // "loading" forever in the browser while the native window showed it).
  auto deferred = std::make_shared<tvis::test::DeferredSource>(
      tvis::test::file_source_for(tvis::test::write_synthetic_run("insights_async", 3)));
  tvis::test::HeadlessApp h;
  h.app().open(deferred);
  for (int i = 0; i < 40; ++i) {
    deferred->pump();
    h.frame();
  }
  json s = h.state();
  REQUIRE(s["page"] == "Replay");
  const json insights = s["insights"];
  REQUIRE(insights.size() == 3);
  for (const auto& name : insights) {
    INFO("insight page " << name);
    REQUIRE(h.app().command(json{{"page", name}}.dump()) == "true");
    for (int i = 0; i < 60 && !(h.state()["insight"] == name && h.state()["view"].is_object()); ++i) {
      deferred->pump();
      h.frame();
    }
    s = h.state();
    CHECK(s["insight"] == name);
    CHECK(s["errors"].empty());
    CHECK(s["view"].is_object());
  }
}

TEST_CASE("a run without insight records (the golden recording) has no Insights page", "[viewer][insights]") {
  tvis::test::HeadlessApp h;
  h.app().open(tvis::test::file_source_for(TVIS_TEST_GOLDEN_RUN));
  h.frame(30);
  const json s = h.state();
  CHECK(s["insights"].empty());
  CHECK(s["library_attention"] == json::array());
  CHECK(std::find(s["pages"].begin(), s["pages"].end(), "Insights") == s["pages"].end());
  CHECK(h.app().command(json{{"page", "Attention"}}.dump()) == "true");  // asked for, says what is missing
  h.frame(5);
  CHECK(h.state()["errors"].empty());
}
