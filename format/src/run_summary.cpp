#include "tvis/format/run_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "tvis/format/chunk_kind.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::format {

namespace {

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// Names in call order: a name's place is the smallest event id it was seen
// at. A recorder writes an event when it ends, so an enclosing call (the
// script's `<module>`, `main`) comes in a later chunk than its children:
// chunk order is not call order, event ids are.
struct FirstCalls {
  std::unordered_map<std::string, uint64_t> first_id;
  void see(std::string name, uint64_t id) {
    if (name.empty()) return;
    auto [it, added] = first_id.emplace(std::move(name), id);
    if (!added && id < it->second) it->second = id;
  }
  std::vector<std::string> in_call_order() const {
    std::vector<std::pair<uint64_t, std::string>> v;
    for (const auto& [name, id] : first_id) v.emplace_back(id, name);
    std::sort(v.begin(), v.end());
    std::vector<std::string> out;
    for (auto& p : v) out.push_back(std::move(p.second));
    return out;
  }
};

// Appends `name` to `list` the first time it is seen.
void add_unique(std::vector<std::string>& list, std::unordered_set<std::string>& seen, std::string name) {
  if (name.empty()) return;
  if (seen.insert(name).second) list.push_back(std::move(name));
}

}  // namespace

struct RunSummaryBuilder::State {
  RunSummary s;
  FirstCalls modules, functions;
  std::unordered_set<std::string> transforms, gradcam, attention, embeddings, library;
  std::set<int32_t> samples;
  std::set<int32_t> optimizer_steps;  // steps with an optimizer step event or record
  std::map<int32_t, std::vector<double>> losses;  // step -> every backward's value, in order
  std::map<int32_t, int64_t> all_reduce_ns;       // step -> summed AllReduce event time
  bool final_meta = false;            // the last RunMeta was written at the end of the run
  int32_t meta_steps = 0;
  std::vector<std::string> run_notices;

  void add_meta(const schema::RunMeta& m) {
    s.script = str(m.script());
    s.argv.clear();
    if (m.argv())
      for (const auto* a : *m.argv()) s.argv.push_back(str(a));
    s.device = str(m.device());
    s.python_version = str(m.python_version());
    s.torch_version = str(m.torch_version());
    s.hostname = str(m.hostname());
    s.started_unix_ms = m.started_unix_ms();
    s.finished_unix_ms = m.finished_unix_ms();
    s.exit_code = m.exit_code();
    s.has_exception = m.exception() != nullptr && m.exception()->size() > 0;
    s.exception = str(m.exception());
    final_meta = m.complete() || m.finished_unix_ms() != 0;
    meta_steps = m.steps_recorded();
    run_notices.clear();
    if (m.notices())
      for (const auto* n : *m.notices())
        if (n) run_notices.push_back(n->message() ? n->message()->str() : str(n->code()));
  }

  void add_events(const schema::EventBatch& b) {
    if (!b.events()) return;
    for (const auto* e : *b.events()) {
      if (!e) continue;
      s.events += 1;
      switch (e->kind()) {
        case schema::EventKind::ModuleCall: modules.see(str(e->name()), e->id()); break;
        case schema::EventKind::FunctionCall: functions.see(str(e->name()), e->id()); break;
        case schema::EventKind::OptimizerStep:
          if (e->step() >= 0) optimizer_steps.insert(e->step());
          break;
        case schema::EventKind::AllReduce:
          if (e->step() >= 0 && e->t_end_ns() >= e->t_begin_ns())
            all_reduce_ns[e->step()] += e->t_end_ns() - e->t_begin_ns();
          break;
        default: break;
      }
    }
  }

  void add_samples(const schema::SampleBatch& b) {
    if (!b.samples()) return;
    for (const auto* smp : *b.samples()) {
      if (!smp) continue;
      samples.insert(smp->id());
      if (!smp->transforms()) continue;
      for (const auto* t : *smp->transforms()) {
        if (!t) continue;
        std::string name = str(t->class_name());
        add_unique(s.captured.transforms, transforms, name.empty() ? str(t->name()) : name);
      }
    }
  }

  void add_insights(const schema::InsightBatch& b) {
    if (b.gradcam())
      for (const auto* g : *b.gradcam())
        if (g) add_unique(s.captured.gradcam, gradcam, str(g->module_()));
    if (b.attention())
      for (const auto* a : *b.attention()) {
        if (!a || !attention.insert(str(a->module_())).second) continue;
        AttentionSummary as;
        as.module = str(a->module_());
        if (a->shape()) as.shape.assign(a->shape()->begin(), a->shape()->end());
        as.rebuilt = a->source() == schema::AttentionSource::Rebuilt;
        as.kind = str(a->kind());
        s.captured.attention.push_back(std::move(as));
      }
    if (b.embeddings())
      for (const auto* e : *b.embeddings())
        if (e) add_unique(s.captured.embeddings, embeddings, str(e->module_()));
    if (b.library_attention())
      for (const auto* l : *b.library_attention()) {
        if (!l) continue;
        LibraryAttentionSummary ls{str(l->module_()), str(l->kind())};
        if (library.insert(ls.module + '\n' + ls.kind).second) s.captured.library_attention.push_back(ls);
      }
  }
};

RunSummaryBuilder::RunSummaryBuilder(const RunReader& reader) : state_(std::make_shared<State>()) {
  RunSummary& s = state_->s;
  s.format_version = std::to_string(reader.header().version_major) + "." +
                     std::to_string(reader.header().version_minor);
  s.complete = reader.complete();
  if (!reader.recovery_notice().empty()) s.notices.push_back(reader.recovery_notice());
}

void RunSummaryBuilder::add(const DecodedChunk& chunk) {
  State& st = *state_;
  const ChunkEntry& e = chunk.entry();
  ChunkKindTotals& totals = st.s.chunks_by_kind[chunk_kind_name(e.info.kind)];
  totals.chunks += 1;
  totals.raw_bytes += e.raw_size;
  totals.stored_bytes += kChunkHeaderSize + e.compressed_size;
  const schema::Chunk* root = chunk.root();
  if (!root) return;
  // Every accessor below may be null in a file from a newer or buggy writer;
  // the reader verified the body, not that it is present.
  if (const auto* m = root->body_as_RunMeta()) st.add_meta(*m);
  if (const auto* b = root->body_as_EventBatch()) st.add_events(*b);
  if (const auto* b = root->body_as_TensorBatch()) st.s.captured.tensors += b->tensors() ? b->tensors()->size() : 0;
  if (const auto* o = root->body_as_OptimizerStepRecord())
    if (o->step() >= 0) st.optimizer_steps.insert(o->step());
  if (const auto* b = root->body_as_SampleBatch()) st.add_samples(*b);
  if (const auto* l = root->body_as_LossRecord()) st.losses[l->step()].push_back(l->value());
  if (const auto* b = root->body_as_InsightBatch()) st.add_insights(*b);
  if (root->body_as_ProfileCapture()) st.s.profile_captures += 1;
}

RunSummary RunSummaryBuilder::finish() {
  State& st = *state_;
  RunSummary s = st.s;
  s.modules = st.modules.in_call_order();
  s.functions = st.functions.in_call_order();
  s.steps = st.final_meta ? st.meta_steps : int64_t(st.optimizer_steps.size());
  for (const auto& kv : st.losses) {
    s.losses.push_back(kv.second.front());
    s.step_losses.push_back(kv.second);
  }
  // Per step from 0 to the last AllReduce step, bounded by what the file holds: a recorded step has
  // at least one event, so a run of E events has at most E steps. A step number past that (a crafted
  // or corrupt file: one event claiming step 2^31-1) is left out with a notice, never a loop or an
  // allocation of its size. int64_t: the last step + 1 of an int32_t step cannot overflow.
  if (!st.all_reduce_ns.empty()) {
    const int64_t last = st.all_reduce_ns.rbegin()->first;
    const int64_t n = std::min<int64_t>(last + 1, int64_t(std::min<uint64_t>(s.events, uint64_t(INT32_MAX))));
    s.all_reduce_ms.assign(size_t(n), 0.0);
    for (const auto& [step, ns] : st.all_reduce_ns)
      if (step < n) s.all_reduce_ms[size_t(step)] = double(ns) / 1e6;
    if (last >= n)
      s.notices.push_back("AllReduce events name step " + std::to_string(last) + " in a run of " +
                          std::to_string(s.events) + " events: steps past " + std::to_string(n - 1) + " left out");
  }
  s.notices.insert(s.notices.end(), st.run_notices.begin(), st.run_notices.end());
  s.captured.samples.assign(st.samples.begin(), st.samples.end());
  return s;
}

Result<RunSummary> summarize_run(RunReader& reader) {
  RunSummaryBuilder builder(reader);
  const uint32_t count = uint32_t(reader.chunks().size());
  for (uint32_t i = 0; i < count; ++i) {
    Result<std::shared_ptr<const DecodedChunk>> c = reader.read_chunk_sync(i);
    if (!c.ok()) return c.status();
    builder.add(*c.value());
  }
  RunSummary s = builder.finish();
  s.file_bytes = reader.source().size();
  return s;
}

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // Shortest scientific form that reads back exactly: "d.ddde+XX".
  char sci[40];
  for (int precision = 0; precision < 17; ++precision) {
    std::snprintf(sci, sizeof sci, "%.*e", precision, v);
    if (std::strtod(sci, nullptr) == v) break;
  }
  std::string text(sci);
  const bool negative = text[0] == '-';
  if (negative) text.erase(0, 1);
  const size_t e_at = text.find('e');
  const int exp10 = std::atoi(text.c_str() + e_at + 1);
  std::string digits;
  for (size_t i = 0; i < e_at; ++i)
    if (text[i] != '.') digits += text[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

  std::string out = negative ? "-" : "";
  if (exp10 < -4 || exp10 >= 16) {  // Python's repr switches to exponent form here
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    char e[8];
    std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    return out + e;
  }
  if (exp10 < 0) return out + "0." + std::string(size_t(-exp10 - 1), '0') + digits;
  const size_t int_digits = size_t(exp10) + 1;
  if (digits.size() <= int_digits) return out + digits + std::string(int_digits - digits.size(), '0') + ".0";
  return out + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

}  // namespace tvis::format
