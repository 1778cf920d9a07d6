// The model's typed queries (issue 30), each the one answer every page
// uses: a call's output and gradient (call_tensors.h), a followed sample's
// row and picture (followed_sample.h), step stops in the recorded gradient
// order (step_stops.h), decoded values behind one bounded cache
// (decoded_values.h) and block means (block_means.h); and the Attention
// view's row, which is the model's answer when state() is asked, not the
// one the page saw when it built its view.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

#include "app_state.h"
#include "headless_app.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container.h"
#include "tvis/format/run_reader.h"
#include "tvis/schema/recording_generated.h"
#include "tvis/viewer_model/block_means.h"
#include "tvis/viewer_model/call_tensors.h"
#include "tvis/viewer_model/decoded_values.h"
#include "tvis/viewer_model/followed_sample.h"
#include "tvis/viewer_model/run_model.h"
#include "tvis/viewer_model/step_stops.h"

namespace vw = tvis::viewer;
namespace schema = tvis::schema;
using nlohmann::json;

namespace {

// A model opened over `path` (a file source answers at once).
void open_model(vw::RunModel& m, const std::string& path) {
  m.open(tvis::test::file_source_for(path));
  REQUIRE(m.status() == vw::RunStatus::Open);
}

// Holds back every read that touches one of `held` ([begin, end) byte
// ranges) until release(); the others are answered at once.
class HoldingSource : public tvis::format::ByteSource {
 public:
  HoldingSource(std::shared_ptr<tvis::format::ByteSource> inner, std::vector<std::pair<uint64_t, uint64_t>> held)
      : inner_(std::move(inner)), held_(std::move(held)) {}
  uint64_t size() const override { return inner_->size(); }
  std::string name() const override { return inner_->name(); }
  void read(uint64_t offset, uint64_t length, tvis::format::ReadDone done) override {
    for (const auto& [b, e] : held_)
      if (offset < e && offset + length > b && !released_) {
        queue_.push_back([this, offset, length, done] { inner_->read(offset, length, done); });
        return;
      }
    inner_->read(offset, length, std::move(done));
  }
  void release() {
    released_ = true;
    auto q = std::move(queue_);
    for (auto& f : q) f();
  }

 private:
  std::shared_ptr<tvis::format::ByteSource> inner_;
  std::vector<std::pair<uint64_t, uint64_t>> held_;
  std::vector<std::function<void()>> queue_;
  bool released_ = false;
};

// The backward stops' names of one step of forward module calls, each
// {id, parent, name, grad_outputs}.
struct Call {
  uint64_t id;
  int64_t parent;
  const char* name;
  std::vector<uint64_t> grads;
};
std::vector<std::string> backward_of(const std::vector<Call>& calls) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<schema::Event>> list;
  for (const Call& c : calls)
    list.push_back(schema::CreateEventDirect(fbb, c.id, c.parent, schema::EventKind::ModuleCall, 0,
                                             schema::Phase::Forward, c.name, nullptr, 0, 0, 0, 0, 0, 0, nullptr,
                                             nullptr, c.grads.empty() ? nullptr : &c.grads));
  fbb.Finish(schema::CreateEventBatchDirect(fbb, &list));
  const auto* batch = flatbuffers::GetRoot<schema::EventBatch>(fbb.GetBufferPointer());
  const vw::StepPlan plan =
      vw::build_step_plan(0, std::vector<const schema::Event*>(batch->events()->begin(), batch->events()->end()));
  std::vector<std::string> names;
  for (const auto& st : plan.stops)
    if (st.phase == schema::Phase::Backward) names.push_back(st.name);
  return names;
}

}  // namespace

TEST_CASE("backward stops follow the gradients' recorded arrival order", "[viewer][model]") {
  // model(A(a1, a2), b): ids 0..4 in call order. The gradients arrived as
  // tensors 10 (b's output, also model's: one tensor), 11 (A), 12 (A.a1),
  // 13 (A.a2): a1 before a2, against the tree's reverse post-order. Ties
  // (model and b share tensor 10) keep the tree's order: the container first.
  CHECK(backward_of({{0, -1, "model", {10}}, {1, 0, "A", {11}}, {2, 1, "A.a1", {12}}, {3, 1, "A.a2", {13}},
                     {4, 0, "b", {10}}}) == std::vector<std::string>{"model", "b", "A", "A.a1", "A.a2"});
  // Without grad_outputs (a synthetic run): the tree's reverse post-order.
  CHECK(backward_of({{0, -1, "model", {}}, {1, 0, "A", {}}, {2, 1, "A.a1", {}}, {3, 1, "A.a2", {}}, {4, 0, "b", {}}}) ==
        std::vector<std::string>{"model", "b", "A", "A.a2", "A.a1"});
}

TEST_CASE("a call without a recorded gradient stays after the call before it in the tree's order", "[viewer][model]") {
  // model(a, b, c); c's gradient arrived first, a's second; b recorded none.
  // Tree order: model, c, b, a; b keeps c's key (20).
  CHECK(backward_of({{0, -1, "model", {20}}, {1, 0, "a", {22}}, {2, 0, "b", {}}, {3, 0, "c", {20}}}) ==
        std::vector<std::string>{"model", "c", "b", "a"});
}

TEST_CASE("block means: blocks of ceil(n / max) cells, the last block averages what is left", "[viewer][model]") {
  // 5 x 3 grid, cell (r, c) = 10 r + c, at most 2 blocks a side: blocks of 3 x 2 cells.
  const vw::BlockMeans b = vw::block_means(5, 3, 2, [](int r, int c) { return 10.0 * r + c; });
  CHECK(b.block_rows == 3);
  CHECK(b.block_cols == 2);
  REQUIRE(b.rows == 2);
  REQUIRE(b.cols == 2);
  CHECK(b.means[0] == Approx(10.5));  // rows 0-2, cols 0-1
  CHECK(b.means[1] == Approx(12.0));  // rows 0-2, col 2
  CHECK(b.means[2] == Approx(35.5));  // rows 3-4, cols 0-1
  CHECK(b.means[3] == Approx(37.0));  // rows 3-4, col 2
  const vw::BlockMeans same = vw::block_means(std::vector<double>{1, 2, 3, 4}, 2, 2, 256);
  CHECK(same.means == std::vector<double>{1, 2, 3, 4});  // small enough: the cells themselves
}

TEST_CASE("a call's output is the first id its event lists (the recorder's runs)", "[viewer][model]") {
  vw::RunModel m(64ull << 20);
  open_model(m, TVIS_TEST_GOLDEN_RUN);
  int listed = 0;
  for (uint64_t id = 0; id < m.event_count(); ++id) {
    const schema::Event* e = m.event(id);
    if (!e || e->kind() != schema::EventKind::ModuleCall || !e->outputs() || e->outputs()->size() == 0) continue;
    bool complete = true;
    const vw::TensorRef out = vw::call_tensor(m, *e, false, &complete);
    REQUIRE(complete);
    REQUIRE(out);
    CHECK(out.record()->id() == e->outputs()->Get(0));
    if (e->grad_outputs() && e->grad_outputs()->size() > 0) {
      const vw::TensorRef grad = vw::call_tensor(m, *e, true, &complete);
      REQUIRE(grad);
      CHECK(grad.record()->id() == e->grad_outputs()->Get(0));
    }
    ++listed;
  }
  CHECK(listed > 0);
}

TEST_CASE("a call whose event lists no outputs (a synthetic run) has the record naming it", "[viewer][model]") {
  vw::RunModel m(64ull << 20);
  open_model(m, tvis::test::write_synthetic_run("call_tensors", 1));
  int calls = 0;
  for (uint64_t id = 0; id < m.event_count(); ++id) {
    const schema::Event* e = m.event(id);
    if (!e || e->kind() != schema::EventKind::ModuleCall) continue;
    REQUIRE((!e->outputs() || e->outputs()->size() == 0));
    bool complete = true;
    const vw::TensorRef out = vw::call_tensor(m, e->id(), false, &complete);
    REQUIRE(out);
    CHECK(out.record()->event() == static_cast<int64_t>(e->id()));
    CHECK(out.record()->role() == schema::TensorRole::Output);
    ++calls;
  }
  CHECK(calls > 0);
}

TEST_CASE("a followed sample's row and picture at a step: its record's; none followed: row 0", "[viewer][model]") {
  vw::RunModel m(64ull << 20);
  open_model(m, tvis::test::write_synthetic_run("followed", 2));
  REQUIRE(m.samples().any());
  int checked = 0;
  for (int step = 0; step < 2; ++step)
    m.samples().for_step(step, [&](const schema::Sample* x) {
      if (x->step() != step) return;
      const vw::SampleAtStep at = vw::sample_at_step(m, step, x->id());
      CHECK(at.complete);
      CHECK(at.row == x->batch_position());
      REQUIRE(at.picture);  // the synthetic pipeline ends in tensors after a PIL Resize
      ++checked;
    });
  CHECK(checked > 0);
  CHECK(vw::sample_row(m, 0, -1) == 0);      // the run follows none: the leading row
  CHECK(vw::sample_row(m, 0, 12345) == -1);  // not in that batch
}

TEST_CASE("decoded values: one answer per tensor, let go past the budget", "[viewer][model]") {
  vw::RunModel m(64ull << 20);
  open_model(m, tvis::test::write_synthetic_run("decoded", 1));
  std::vector<uint64_t> kept;  // tensors whose values are in the file
  for (uint64_t id = 0; id < m.event_count() && kept.size() < 2; ++id) {
    const schema::Event* e = m.event(id);
    if (!e || e->kind() != schema::EventKind::ModuleCall) continue;
    bool complete = true;
    const vw::TensorRef t = vw::call_tensor(m, *e, false, &complete);
    if (t && t.record()->kept() != schema::ValuesKept::None) kept.push_back(t.record()->id());
  }
  REQUIRE(kept.size() == 2);
  auto a1 = m.values().get(kept[0], 0);
  REQUIRE(a1->ok());
  CHECK(m.values().get(kept[0], 0) == a1);  // decoded once, shared
  CHECK(m.values().get(999999999)->missing);

  vw::DecodedValues tiny(m, 1);  // a budget of one byte: only the newest stays
  auto t1 = tiny.get(kept[0], 0);
  REQUIRE(t1->ok());
  auto t2 = tiny.get(kept[1], 0);
  REQUIRE(t2->ok());
  CHECK(t1->values.values.size() > 0);  // still valid while held
  CHECK(tiny.get(kept[1], 0) == t2);
  CHECK(tiny.get(kept[0], 0) != t1);  // let go, decoded again
}

TEST_CASE("the Attention view's row is the model's answer once the step's samples arrive", "[viewer][model][insights]") {
  const std::string path = tvis::test::write_synthetic_run("attention_row", 2);
  // The Samples chunks of step 1 (not those of step 0 alone) are held back.
  std::vector<std::pair<uint64_t, uint64_t>> held;
  tvis::format::RunReader::open(tvis::test::file_source_for(path), [&](auto result) {
    REQUIRE(result.ok());
    for (const auto& c : result.value()->chunks())
      if (c.info.kind == static_cast<uint16_t>(tvis::format::ChunkKind::Samples) && c.info.step_last >= 1)
        held.push_back({c.offset, c.offset + tvis::format::kChunkHeaderSize + c.compressed_size});
  });
  REQUIRE_FALSE(held.empty());
  auto source = std::make_shared<HoldingSource>(tvis::test::file_source_for(path), held);
  tvis::test::HeadlessApp h;
  h.app().open(source);
  h.frame(10);
  REQUIRE(h.app().command(json{{"link", {{"page", "Attention"}, {"step", 1}}}}.dump()) == "true");
  h.frame(30);
  json view = h.state()["view"];
  REQUIRE(view.is_object());
  REQUIRE(view["step"] == 1);
  const int sample = view["sample"].get<int>();
  CHECK(view["row"] == -1);  // step 1's samples are still read (step 0's named the followed ones)
  source->release();
  h.frame(10);
  view = h.state()["view"];
  vw::AppState& s = h.app().internals();
  const int want = vw::sample_row(s.model, 1, sample);
  CHECK(want >= 0);
  CHECK(view["sample"] == sample);
  CHECK(view["row"] == want);
}
