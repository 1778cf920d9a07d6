#include "tvis/viewer_model/insights.h"

#include "tvis/viewer_model/run_model.h"
#include "tvis/format/fb_string.h"

namespace tvis::viewer {

namespace {

template <typename V>
bool non_empty(const V* v) {
  return v && v->size() > 0;
}

using format::str;

template <typename T, typename V>
std::vector<T> numbers(const V* v) {
  std::vector<T> out;
  if (v) out.assign(v->begin(), v->end());
  return out;
}

std::vector<std::string> strings(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* v) {
  std::vector<std::string> out;
  if (v)
    for (const auto* s : *v) out.push_back(str(s));
  return out;
}

AttentionEntry attention_entry(const schema::AttentionRecord& r) {
  AttentionEntry e{r.step(),  str(r.module_()), r.event(), r.sample(), numbers<int64_t>(r.shape()), r.weights(),
                   numbers<int64_t>(r.tokens()), strings(r.token_labels())};
  e.rebuilt = r.source() == schema::AttentionSource::Rebuilt;
  e.kind = str(r.kind());
  e.mask = r.mask();
  e.full = numbers<int64_t>(r.full());
  e.dropout = r.dropout();
  return e;
}

GradCamEntry gradcam_entry(const schema::GradCamRecord& r) {
  return {r.step(), str(r.module_()), r.sample(), r.target() == schema::CamTarget::True, r.class_index(), r.map()};
}

}  // namespace

std::string attention_origin(const AttentionEntry& e) {
  if (e.rebuilt) return "rebuilt from q, k" + (e.kind.empty() ? std::string() : " of " + e.kind);
  if (e.kind.empty()) return "captured from your softmax";
  return "captured from torch's softmax in " + e.kind;
}

void Insights::reset() {
  scan_.reset();
  kinds_ = {};
  attention_.clear();
  gradcam_.clear();
  embeddings_.clear();
  tables_.clear();
  library_.clear();
}

bool Insights::ready() {
  if (!model_.cache_if_open()) return false;
  return scan_.run<schema::InsightBatch>(
      model_.cache(), model_.chunks_of_kind(format::ChunkKind::Insights), false,
      [&](ChunkBody<schema::InsightBatch>& read) {
        const schema::InsightBatch& b = *read.body;
        kinds_.attention |= non_empty(b.attention()) || non_empty(b.library_attention());
        kinds_.gradcam |= non_empty(b.gradcam());
        kinds_.embeddings |= non_empty(b.embeddings()) || non_empty(b.tables());
        if (b.attention())
          for (const auto* r : *b.attention()) attention_.push_back(attention_entry(*r));
        if (b.gradcam())
          for (const auto* r : *b.gradcam()) gradcam_.push_back(gradcam_entry(*r));
        if (b.embeddings())
          for (const auto* r : *b.embeddings())
            embeddings_.push_back({r->step(), str(r->module_()), numbers<int>(r->samples()), strings(r->labels()),
                                   r->vectors(), numbers<int>(r->positions()), numbers<int>(r->rows()),
                                   strings(r->row_labels()), r->batch_vectors(), r->batch_size()});
        if (b.tables())
          for (const auto* r : *b.tables()) tables_.push_back({str(r->module_()), r->rows(), strings(r->labels())});
        if (b.library_attention())
          for (const auto* r : *b.library_attention()) library_.push_back({str(r->module_()), str(r->kind())});
      });
}

const InsightKinds& Insights::kinds() {
  ready();
  return kinds_;
}

}  // namespace tvis::viewer
