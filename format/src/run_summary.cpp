#include "tvis/format/run_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_config_of.h"
#include "tvis/schema/recording_generated.h"
#include "tvis/format/fb_string.h"

namespace tvis::format {

namespace {


// A string field copied into the summary, cut at `max` bytes ("..." marks a cut).
std::string bounded(const flatbuffers::String* s, size_t max) {
  if (!s) return {};
  if (s->size() <= max) return s->str();
  return std::string(s->c_str(), max) + "...";
}

// Names in call order: a name's place is the smallest event id it was seen
// at. A recorder writes an event when it ends, so an enclosing call (the
// script's `<module>`, `main`) comes in a later chunk than its children:
// chunk order is not call order, event ids are.
// Linear in the chunk's bytes: events that share one FlatBuffer string (any
// number may) are looked up by its address, so its text is copied and
// hashed once per chunk, not once per event.
struct FirstCalls {
  std::unordered_map<std::string, uint64_t> first_id;
  std::unordered_map<const flatbuffers::String*, uint64_t*> in_chunk;  // this chunk's strings: clear per chunk
  void see(const flatbuffers::String* name, uint64_t id) {
    if (!name || name->size() == 0) return;
    uint64_t* first;
    auto known = in_chunk.find(name);
    if (known != in_chunk.end()) {
      first = known->second;
    } else {
      first = &first_id.emplace(bounded(name, kSummaryFieldBytes), id).first->second;  // node-based: stays valid
      in_chunk.emplace(name, first);
    }
    if (id < *first) *first = id;
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

  // What a RunMeta's strings may cost the summary (run_summary.h): a vector
  // may reference one string any number of times, so a 24 kB file can name
  // gigabytes; the copies stop at these bounds and a notice says so.
  void add_meta(const schema::RunMeta& m) {
    s.script = bounded(m.script(), kSummaryFieldBytes);
    s.argv.clear();
    if (const auto* argv = m.argv()) {
      size_t bytes = 0;
      for (const auto* a : *argv) {
        const size_t len = a ? a->size() : 0;
        if (s.argv.size() >= kSummaryListItems || bytes + len > kSummaryListBytes) {
          s.argv.push_back("... (" + std::to_string(argv->size()) + " arguments in all)");
          break;
        }
        bytes += len;
        s.argv.push_back(str(a));
      }
    }
    s.config = run_config_of(m);
    s.config.project_dir = bounded(m.config() ? m.config()->project_dir() : m.project_dir(), kSummaryFieldBytes);
    s.has_config = true;
    s.device = bounded(m.device(), kSummaryFieldBytes);
    s.python_version = bounded(m.python_version(), kSummaryFieldBytes);
    s.torch_version = bounded(m.torch_version(), kSummaryFieldBytes);
    s.hostname = bounded(m.hostname(), kSummaryFieldBytes);
    s.started_unix_ms = m.started_unix_ms();
    s.finished_unix_ms = m.finished_unix_ms();
    s.exit_code = m.exit_code();
    s.has_exception = m.exception() != nullptr && m.exception()->size() > 0;
    s.exception = bounded(m.exception(), kSummaryListBytes);
    final_meta = m.complete() || m.finished_unix_ms() != 0;
    meta_steps = m.steps_recorded();
    s.device_reads.clear();
    if (const auto* reads = m.step_device_reads())  // bounded like the lists above
      for (size_t i = 0; i < reads->size() && i < kSummaryListItems; ++i) s.device_reads.push_back(reads->Get(i));
    run_notices.clear();
    if (const auto* notices = m.notices()) {
      size_t bytes = 0;
      for (const auto* n : *notices) {
        if (!n) continue;
        std::string text = n->message() ? bounded(n->message(), kSummaryFieldBytes) : bounded(n->code(), kSummaryFieldBytes);
        if (run_notices.size() >= kSummaryListItems || bytes + text.size() > kSummaryListBytes) {
          run_notices.push_back("... (the run's RunMeta holds " + std::to_string(notices->size()) +
                                " notices; the first " + std::to_string(run_notices.size()) + " are shown)");
          break;
        }
        bytes += text.size();
        run_notices.push_back(std::move(text));
      }
    }
  }

  void add_events(const schema::EventBatch& b) {
    modules.in_chunk.clear();  // string addresses are this chunk's
    functions.in_chunk.clear();
    if (!b.events()) return;
    for (const auto* e : *b.events()) {
      if (!e) continue;
      s.events += 1;
      switch (e->kind()) {
        case schema::EventKind::ModuleCall: modules.see(e->name(), e->id()); break;
        case schema::EventKind::FunctionCall: functions.see(e->name(), e->id()); break;
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

void RunSummaryBuilder::add_verified(const ChunkEntry& e) {
  ChunkKindTotals& totals = state_->s.chunks_by_kind[chunk_kind_name(e.info.kind)];
  totals.chunks += 1;
  totals.raw_bytes += e.raw_size;
  totals.stored_bytes += kChunkHeaderSize + e.compressed_size;
}

void RunSummaryBuilder::add(const DecodedChunk& chunk) {
  State& st = *state_;
  add_verified(chunk.entry());
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
    if (reader.chunks()[i].info.kind == uint16_t(ChunkKind::TensorData)) {  // values: verified, never kept
      Status v = reader.verify_chunk_sync(i);
      if (!v) return v;
      builder.add_verified(reader.chunks()[i]);
      continue;
    }
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
