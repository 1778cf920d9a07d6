#include "tvis/viewer_model/call_ref.h"

namespace tvis::viewer {
namespace {

std::string_view view_of(const flatbuffers::String* s) {
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

std::vector<uint64_t> ids_of(const flatbuffers::Vector<uint64_t>* ids) {
  return ids ? std::vector<uint64_t>(ids->begin(), ids->end()) : std::vector<uint64_t>();
}

}  // namespace

uint64_t CallRef::id() const { return e_->id(); }
int64_t CallRef::parent() const { return e_->parent(); }
EventKind CallRef::kind() const { return e_->kind(); }
int CallRef::step() const { return e_->step(); }
Phase CallRef::phase() const { return e_->phase(); }
std::string_view CallRef::name() const { return view_of(e_->name()); }
std::string_view CallRef::class_name() const { return view_of(e_->class_name()); }
uint32_t CallRef::call_file() const { return e_->call_file(); }
uint32_t CallRef::call_line() const { return e_->call_line(); }
uint32_t CallRef::def_file() const { return e_->def_file(); }
uint32_t CallRef::def_line() const { return e_->def_line(); }
int64_t CallRef::t_begin_ns() const { return e_->t_begin_ns(); }
int64_t CallRef::t_end_ns() const { return e_->t_end_ns(); }
double CallRef::grad_norm() const { return e_->grad_norm(); }
int CallRef::sample() const { return e_->sample(); }
std::vector<uint64_t> CallRef::inputs() const { return ids_of(e_->inputs()); }
std::vector<uint64_t> CallRef::outputs() const { return ids_of(e_->outputs()); }
std::vector<uint64_t> CallRef::grad_outputs() const { return ids_of(e_->grad_outputs()); }

std::vector<CallDetail> CallRef::detail() const {
  std::vector<CallDetail> out;
  if (e_->detail())
    for (const schema::KeyValue* kv : *e_->detail()) out.push_back({view_of(kv->key()), view_of(kv->value())});
  return out;
}

}  // namespace tvis::viewer
