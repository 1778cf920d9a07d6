#include "tvis/recorder/recorder.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>  // c10::NoGradGuard (ATen.h no longer brings it in torch 2.x)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <xxhash.h>

#include "device_reads.h"
#include "host_copy.h"
#include "tensor_capture.h"
#include "tvis/recorder/value_stats.h"

namespace tvis::recorder {

namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::unique_ptr<RunBuilder> create_builder(const RecorderOptions& options) {
  BuilderOptions o;
  o.path = options.path;
  o.zstd_level = options.zstd_level;
  if (options.dense_zstd_level) o.dense_zstd_level = *options.dense_zstd_level;
  o.data_chunk_bytes = static_cast<uint64_t>(options.data_chunk_bytes);
  // TVIS_WRITER_BACKLOG_BYTES: the writer's in-memory bound before chunks spill beside the run
  // (run_writer.h; tests force 0: every chunk goes through the spill file).
  if (const char* b = std::getenv("TVIS_WRITER_BACKLOG_BYTES"); b && *b) o.max_backlog_bytes = std::strtoull(b, nullptr, 10);
  // TVIS_WRITER_NICE: how far the writer's threads lower their priority (0: the caller's; benchmarks' A/B).
  if (const char* v = std::getenv("TVIS_WRITER_NICE"); v && *v) o.writer_nice = std::atoi(v);
  // TVIS_XOR_DELTA=0: every weight chunk stored whole (run_builder.h; the bench's "before" size).
  if (const char* x = std::getenv("TVIS_XOR_DELTA"); x && std::string(x) == "0") o.xor_delta_weights = false;
  auto b = RunBuilder::create(o);
  if (!b.ok()) throw std::runtime_error(b.status().message);
  return std::move(b.value());
}

constexpr int kInput = 0, kOutput = 1;

}  // namespace

Recorder::Recorder(const RecorderOptions& options)
    : builder_(create_builder(options)),
      budget_(options.config.max_run_bytes, std::max(1, options.config.steps)),
      paths_(options.config.project_dir, options.exclude_dirs),
      config_(options.config),
      max_elems_(options.config.max_elems),
      evaluation_values_(options.config.eval_values),
      update_values_(options.update_values),
      samples_(options.config.samples),
      followed_rows_(options.config.samples > 0 ? options.config.samples : 1) {
  t0_ = steady_ns();
  phase_t0_ = 0;  // now() is relative to t0_
  own_t0_ = own_.total();
  phase_own0_ = own_t0_;
  const size_t slash = options.path.rfind('/');
  run_dir_ = slash == std::string::npos ? "." : options.path.substr(0, slash + 1);
  spill_threshold_ = options.spill_snapshot_bytes;
}

int64_t Recorder::now() const { return steady_ns() - t0_; }

// ---- files and events --------------------------------------------------------

uint32_t Recorder::file_id(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(file_paths_.size());
  file_paths_.push_back(path);
  files_.emplace(path, id);
  return id;
}

uint64_t Recorder::begin(int kind, const std::string& name, const std::string& class_name, uint32_t call_file,
                         uint32_t call_line, uint32_t def_file, uint32_t def_line, const void* frame) {
  auto ev = std::make_unique<schema::EventT>();
  ev->parent = stack_.empty() ? -1 : static_cast<int64_t>(stack_.back().id);
  ev->kind = static_cast<schema::EventKind>(kind);
  ev->step = step_;
  ev->phase = static_cast<schema::Phase>(phase_);
  ev->name = name;
  ev->class_name = class_name;
  ev->call_file = call_file;
  ev->call_line = call_line;
  ev->def_file = def_file;
  ev->def_line = def_line;
  ev->t_begin_ns = now();
  const int64_t own0 = own_.total();
  ev->own_before_ns = std::clamp<int64_t>(own0 - own_t0_, 0, ev->t_begin_ns);
  const uint64_t id = builder_->begin_event(std::move(ev));
  stack_.push_back({id, frame, own0});
  return id;
}

void Recorder::end(uint64_t id) {
  for (size_t i = stack_.size(); i-- > 0;) {
    if (stack_[i].id != id) continue;
    const int64_t t = now();
    const int64_t own = own_.total();
    while (stack_.size() > i) {
      set_own(stack_.back().id, t, stack_.back().own0, own);
      builder_->end_event(stack_.back().id, t);
      stack_.pop_back();
    }
    return;
  }
}

void Recorder::set_own(uint64_t id, int64_t t, int64_t own0, int64_t own_now) {
  schema::EventT* ev = builder_->find_event(id);
  if (!ev) return;
  const int64_t wall = std::max<int64_t>(0, t - ev->t_begin_ns);
  ev->own_ns = std::clamp<int64_t>(own_now - own0, 0, wall);
}

void Recorder::end_frame(const void* frame) {
  for (size_t i = stack_.size(); i-- > 0;) {
    if (stack_[i].frame == frame) {
      end(stack_[i].id);
      return;
    }
  }
}

uint64_t Recorder::instant(int kind, const std::string& name) {
  const uint64_t id = begin(kind, name, "", 0, 0, 0, 0);
  end(id);
  return id;
}

void Recorder::add_detail(uint64_t id, std::vector<std::unique_ptr<schema::KeyValueT>> kvs) {
  if (auto* ev = builder_->find_event(id))
    for (auto& kv : kvs) ev->detail.push_back(std::move(kv));
}

// ---- step and phase ------------------------------------------------------------

void Recorder::set_step(int step) {
  close_phase_timing();
  if (step_ >= 0) {  // the reads since the last set_step() belong to the step that ends
    if (step_reads_.size() <= static_cast<size_t>(step_)) step_reads_.resize(step_ + 1, 0);
    step_reads_[step_] += static_cast<uint32_t>(device_reads() - reads_mark_);
  }
  reads_mark_ = device_reads();
  step_ = step;
  budget_.begin_step(step);
  dedup_.clear();
  dedup_grads_.clear();
}

void Recorder::set_phase(int phase) {
  if (phase == phase_) return;
  close_phase_timing();
  if (phase_ != 0) instant(static_cast<int>(schema::EventKind::PhaseEnd), "");
  phase_ = phase;
  if (phase_ != 0) instant(static_cast<int>(schema::EventKind::PhaseBegin), "");
}

void Recorder::close_phase_timing() {
  const int64_t t = now();
  const int64_t own = own_.total();
  if (phase_ != 0) {
    PhaseTime& pt = timings_[{step_, phase_}];
    pt.ns += t - phase_t0_;
    pt.own += std::clamp<int64_t>(own - phase_own0_, 0, t - phase_t0_);
  }
  phase_t0_ = t;
  phase_own0_ = own;
}

// ---- tensors -------------------------------------------------------------------

Recorder::DedupMap* Recorder::dedup_for(const at::Tensor& t, int role) {
  if (t.is_inference()) return nullptr;
  if (role == kInput || role == kOutput) return &dedup_;
  if (role == static_cast<int>(schema::TensorRole::GradOutput)) return &dedup_grads_;
  return nullptr;
}

int64_t Recorder::tensor(const at::Tensor& t, int role, int64_t event, const std::string& name, int slot,
                         bool whole_rows) {
  OwnScope own(own_);
  DedupMap* dedup = dedup_for(t, role);
  c10::TensorImpl* impl = t.unsafeGetTensorImpl();
  // Evaluation passes keep statistics unless --eval-values; a rank's local
  // gradient before all-reduce always does (the all-reduced one is the Grad).
  const bool stats_only = (phase_ == static_cast<int>(schema::Phase::Evaluation) && !evaluation_values_) ||
                          role == static_cast<int>(schema::TensorRole::LocalGrad);
  if (dedup) {
    auto it = dedup->find(impl);
    if (it != dedup->end() && !it->second.impl.expired() &&
        it->second.version == impl->version_counter().current_version() && (it->second.values || stats_only) &&
        (it->second.whole || !whole_rows)) {
      last_l2_ = it->second.l2;
      last_stats_ = it->second.stats;
      return static_cast<int64_t>(it->second.id);
    }
  }
  const int64_t id = add_record(t, role, event, name, slot, step_, stats_only, whole_rows);
  if (dedup) {
    dedup->insert_or_assign(impl, DedupEntry{c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>(
                                                 t.getIntrusivePtr()),
                                             impl->version_counter().current_version(), static_cast<uint64_t>(id),
                                             last_l2_, last_stats_, !stats_only, whole_rows});
  }
  return id;
}

namespace {

bool is_activation(int role) {
  switch (static_cast<schema::TensorRole>(role)) {
    case schema::TensorRole::Input:
    case schema::TensorRole::Output:
    case schema::TensorRole::GradOutput:
    case schema::TensorRole::GradInput: return true;
    default: return false;
  }
}

}  // namespace

int64_t Recorder::add_record(const at::Tensor& t, int role, int64_t event, const std::string& name, int slot,
                             int step, bool stats_only, bool whole_rows) {
  CaptureOptions o;
  o.max_elems = max_elems_;
  const bool batch_sized = t.dim() > 0 && t.size(0) == batch_rows_;
  o.min_rows = batch_sized ? samples_ : 0;
  if (batch_sized && !whole_rows && is_activation(role) && t.size(0) > followed_rows_) {
    // What the viewer draws of an activation: the followed samples' rows.
    const int64_t row = t.numel() / t.size(0);
    o.max_elems = std::min(o.max_elems, followed_rows_ * row);
    o.min_rows = followed_rows_;
  }
  o.stats_only = stats_only;
  o.batch = &batch_;
  if (!stats_only) apply_budget(t, role, &o);
  Captured c = capture_tensor(t, o);
  c.rec->event = event;
  c.rec->role = static_cast<schema::TensorRole>(role);
  c.rec->slot = slot;
  c.rec->name = name;
  c.rec->step = step;
  last_l2_ = c.rec->stats->l2;
  last_stats_ = c.rec->stats.get();  // owned by the builder until flush()
  return static_cast<int64_t>(builder_->add_tensor(std::move(c.rec), c.values, c.size, c.f32, c.mostly_zero));
}

void Recorder::list_on_event(uint64_t event, int role, const std::vector<int64_t>& ids) {
  if (role != kInput && role != kOutput) return;
  if (auto* ev = builder_->find_event(event)) {
    auto& dst = role == kInput ? ev->inputs : ev->outputs;
    for (auto id : ids) dst.push_back(static_cast<uint64_t>(id));
  }
}

void Recorder::on_grad(uint64_t event, const at::Tensor& grad) {
  if (paused_ || !grad.defined()) return;
  // A gradient without data of its own (a DTensor's: a wrapper subclass) is not read here, where
  // there is no Python object to take its local part from (PyRecorder::on_grad does).
  if (grad.layout() == at::kStrided && grad.numel() > 0 && !(grad.has_storage() && grad.storage().data() != nullptr))
    return;
  OwnScope own(own_);
  if (!builder_->find_event(event)) {
    ++late_grads_;
    return;
  }
  const int64_t id =
      tensor(grad, static_cast<int>(schema::TensorRole::GradOutput), static_cast<int64_t>(event), "", 0);
  schema::EventT* ev = builder_->find_event(event);
  ev->grad_outputs.push_back(static_cast<uint64_t>(id));
  // After the step's device statistics are read (at once on the CPU path).
  batch_.then([this, event, stats = last_stats_, l2 = last_l2_] {
    const double v = stats ? stats->l2 : l2;
    if (schema::EventT* e = builder_->find_event(event))
      e->grad_norm = e->grad_norm < 0 ? v : std::sqrt(e->grad_norm * e->grad_norm + v * v);
  });
  if (grad.dim() > 0 && grad.size(0) == batch_rows_ && ev->sample_grad_norms.empty())
    leading_row_norms(grad, samples_, batch_, [this, event](std::vector<double> norms) {
      schema::EventT* e = builder_->find_event(event);
      if (e && e->sample_grad_norms.empty()) e->sample_grad_norms = std::move(norms);
    });
}

int64_t Recorder::update(int64_t event, const std::string& name, const at::Tensor& after, const at::Tensor& before) {
  const at::Tensor delta = param_delta(after, before);
  return tensor(delta, static_cast<int>(schema::TensorRole::Update), event, name, 0);
}

// ---- optimizer step ------------------------------------------------------------

std::vector<std::pair<int64_t, int64_t>> Recorder::params_before(int64_t event, const std::vector<std::string>& names,
                                                                  const std::vector<at::Tensor>& params,
                                                                  const std::vector<at::Tensor>* grads) {
  OwnScope own(own_);
  if (names.size() != params.size()) throw std::invalid_argument("params_before: one name per parameter");
  if (grads && grads->size() != params.size()) throw std::invalid_argument("params_before: one grad per parameter");
  std::vector<std::pair<int64_t, int64_t>> ids;
  pending_.clear();
  uint64_t all_bytes = 0;
  for (const at::Tensor& p : params) all_bytes += static_cast<uint64_t>(p.numel()) * p.element_size();
  end_spill_step();  // a step whose params_after() never came (the optimizer raised) leaves nothing behind
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i];
    int64_t wid = unchanged_weight(p);
    if (wid < 0) wid = tensor(p, static_cast<int>(schema::TensorRole::Weight), event, names[i], 0);
    const at::Tensor g = grads ? (*grads)[i] : p.grad();
    const int64_t gid = g.defined() ? tensor(g, static_cast<int>(schema::TensorRole::Grad), event, names[i], 0) : -1;
    ids.emplace_back(wid, gid);
    int64_t offset = -1;
    if (spills(p, all_bytes)) {
      try {
        offset = spill_->write(p);
        peak_spilled_ = std::max(peak_spilled_, spill_->bytes());
        if (spare_.size() > i) spare_[i] = at::Tensor();  // its in-memory buffer is not needed any more
      } catch (const std::runtime_error& e) {
        give_up_spilling(e.what());  // this parameter and the rest in memory
      }
    }
    if (offset >= 0) pending_.push_back({names[i], p.unsafeGetTensorImpl(), at::Tensor(), offset, p.numel()});
    else pending_.push_back({names[i], p.unsafeGetTensorImpl(), snapshot(i, p), -1, p.numel()});
  }
  builder_->end_weights();  // a boundary: the next one's weights are stored against these
  return ids;
}

std::vector<std::pair<int64_t, int64_t>> Recorder::params_after(int64_t event, const std::vector<at::Tensor>& params) {
  OwnScope own(own_);
  if (params.size() != pending_.size()) throw std::invalid_argument("params_after: not the params_before() list");
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].unsafeGetTensorImpl() != pending_[i].impl)
      throw std::invalid_argument("params_after: not the params_before() list");
  constexpr int kUpdate = static_cast<int>(schema::TensorRole::Update);
  constexpr int kWeight = static_cast<int>(schema::TensorRole::Weight);
  std::vector<std::pair<int64_t, int64_t>> ids;
  for (size_t i = 0; i < params.size(); ++i) {
    Pending& b = pending_[i];
    const at::Tensor& p = params[i];
    int64_t uid;
    if (b.spilled >= 0) {
      uid = spilled_update(b, p, event);
    } else if (!update_values_ && fused_delta_fits(b.before, p)) {
      uid = update_summary(b, delta_into_with_stats(b.before, p), event);  // `before` now holds the update
    } else {
      // `before` now holds the update; a device parameter's before waits on the host (snapshot())
      param_delta_into(b.before, b.before.device() == p.device() ? p : host_copy(p));
      uid = add_record(b.before, kUpdate, event, b.name, 0, step_, !update_values_);
    }
    const int64_t aid = add_record(p, kWeight, event, b.name, 0, step_ + 1, false);
    // The builder hashed the kept bytes; when they are all of p's, that is bytes_hash(p).
    const auto [hashed, low] = builder_->last_value_hash();
    const bool whole = p.device().is_cpu() && hashed > 0 && hashed == static_cast<uint64_t>(p.numel()) * p.element_size();
    c10::TensorImpl* impl = p.unsafeGetTensorImpl();
    weights_after_.insert_or_assign(
        impl, WeightAfter{c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>(p.getIntrusivePtr()),
                          impl->version_counter().current_version(), whole ? low : bytes_hash(p), aid});
    ids.emplace_back(uid, aid);
    if (b.before.defined() && b.before.device().is_cpu()) spare_[i] = std::move(b.before);  // reused next step: no fresh pages
  }
  pending_.clear();
  end_spill_step();
  builder_->end_weights();  // the weights after the step, stored against the boundary before
  return ids;
}

void Recorder::params_unchanged() {
  for (size_t i = 0; i < pending_.size(); ++i)
    if (pending_[i].before.defined() && pending_[i].before.device().is_cpu() && spare_.size() > i)
      spare_[i] = std::move(pending_[i].before);  // reused next step, as after an update
  pending_.clear();
  end_spill_step();
}

namespace {

ByteBudget::Priority priority_of(int role) {
  switch (static_cast<schema::TensorRole>(role)) {
    case schema::TensorRole::Weight:
    case schema::TensorRole::Grad: return ByteBudget::Priority::Parameters;
    case schema::TensorRole::Input:
    case schema::TensorRole::Output:
    case schema::TensorRole::GradOutput:
    case schema::TensorRole::GradInput:
    case schema::TensorRole::Update:
    case schema::TensorRole::Other: return ByteBudget::Priority::Activations;
    default: return ByteBudget::Priority::Essential;  // batches, targets, logits, pipeline, insights
  }
}

}  // namespace

void Recorder::apply_budget(const at::Tensor& t, int role, CaptureOptions* o) {
  if (!budget_.limited() || !t.has_storage()) return;
  const uint64_t elem = static_cast<uint64_t>(t.element_size());
  const int64_t rows = kept_rows_of(t, *o);
  const uint64_t row_elems = t.dim() > 0 && t.size(0) > 0 ? static_cast<uint64_t>(t.numel() / t.size(0)) : 1;
  const uint64_t bytes =
      rows == 0 ? static_cast<uint64_t>(t.numel()) * elem : static_cast<uint64_t>(rows) * row_elems * elem;
  if (budget_.grant(priority_of(role), bytes)) return;
  o->thumbnail = true;
  const int64_t followed = t.dim() > 0 ? std::min(o->min_rows, t.size(0)) : 0;
  if (followed > 0 && budget_.grant(ByteBudget::Priority::FollowedRows, static_cast<uint64_t>(followed) * row_elems * elem)) {
    o->max_elems = 1;  // the followed samples' rows stay
  } else {
    o->stats_only = true;
  }
}

int64_t Recorder::unchanged_weight(const at::Tensor& p) const {
  c10::TensorImpl* impl = p.unsafeGetTensorImpl();
  auto it = weights_after_.find(impl);
  if (it == weights_after_.end() || it->second.impl.expired()) return -1;
  // `.data` and `torch.no_grad()` writes bump no version counter of the
  // parameter itself in every case: the bytes decide on the CPU.
  if (it->second.version != impl->version_counter().current_version() || it->second.hash != bytes_hash(p)) return -1;
  return it->second.id;
}

/// XXH3-128's low half of a CPU tensor's bytes (contiguous copy when
/// needed); 0 for other devices, whose weights are matched by version alone.
uint64_t Recorder::bytes_hash(const at::Tensor& p) {
  if (!p.device().is_cpu() || !p.has_storage()) return 0;
  const at::Tensor c = p.detach().contiguous();
  return XXH3_128bits(c.data_ptr(), static_cast<size_t>(c.numel()) * c.element_size()).low64;
}

/// An exact copy of `p` in the CPU buffer kept for slot `i` when it fits
/// (warm pages), else in a new tensor like p; a device parameter's is a new
/// host copy (host_copy.h), never a second copy in device memory.
at::Tensor Recorder::snapshot(size_t i, const at::Tensor& p) {
  c10::NoGradGuard no_grad;
  if (spare_.size() <= i) spare_.resize(i + 1);
  if (!p.device().is_cpu()) return host_copy(p);  // host memory, never a second copy on the device
  at::Tensor buf = std::move(spare_[i]);
  if (!buf.defined() || buf.sizes() != p.sizes() || buf.scalar_type() != p.scalar_type() || buf.device() != p.device())
    buf = at::empty(p.sizes(), p.options().requires_grad(false).memory_format(at::MemoryFormat::Contiguous));
  buf.copy_(p.detach());
  return buf;
}

bool Recorder::spills(const at::Tensor& p, uint64_t all_bytes) {
  if (all_bytes < spill_threshold_ || update_values_ || !p.device().is_cpu() || p.scalar_type() != at::kFloat ||
      !p.is_contiguous() || p.numel() < (int64_t(1) << 19))
    return false;
  if (!spill_) {
    try {
      spill_ = std::make_unique<SnapshotSpill>(run_dir_);
    } catch (const std::runtime_error&) {
      spill_threshold_ = UINT64_MAX;  // no file here: memory, as for a small model
      return false;
    }
  }
  return true;
}

void Recorder::give_up_spilling(const std::string& why) {
  if (spill_error_.empty()) spill_error_ = why;
  spill_threshold_ = UINT64_MAX;  // what is already in the file stays readable until the step ends
}

void Recorder::end_spill_step() {
  if (!spill_) return;
  try {
    spill_->rewind();  // the pages go back now, not at the next step (the script may train on unrecorded)
  } catch (const std::runtime_error& e) {
    give_up_spilling(e.what());
  }
  if (spill_threshold_ == UINT64_MAX) spill_.reset();
}

int64_t Recorder::spilled_update(const Pending& b, const at::Tensor& after_in, int64_t event) {
  c10::NoGradGuard no_grad;
  const at::Tensor after = after_in.detach().contiguous();
  if (after.scalar_type() != at::kFloat || after.numel() != b.numel)
    throw std::invalid_argument("params_after: parameter " + b.name + " changed its dtype or size during the step");
  ValueStats vs;
  try {
    vs = spill_->delta_stats(b.spilled, after);
  } catch (const std::runtime_error& e) {  // the file failed: Δw's count only, the reason in stats()
    give_up_spilling(e.what());
    ++spill_lost_updates_;
    vs.count = static_cast<uint64_t>(after.numel());
  }
  return update_summary(b, vs, event, &after);
}

int64_t Recorder::update_summary(const Pending& b, const ValueStats& vs, int64_t event, const at::Tensor* like) {
  Captured c = capture_summary(like ? *like : b.before, vs);
  c.rec->event = event;
  c.rec->role = schema::TensorRole::Update;
  c.rec->name = b.name;
  c.rec->step = step_;
  c.rec->requires_grad = false;
  return static_cast<int64_t>(builder_->add_tensor(std::move(c.rec), nullptr, 0, false, c.mostly_zero));
}

// ---- records -------------------------------------------------------------------

void Recorder::add_record(schema::BodyUnion body, int32_t step_first, int32_t step_last, uint64_t event_first,
                          uint64_t event_last) {
  OwnScope own(own_);
  builder_->add_record(std::move(body), step_first, step_last, event_first, event_last);
}

void Recorder::add_phase_timings(schema::RunMetaT* meta) const {
  meta->config = std::make_unique<schema::RunConfigT>(config_);  // the run's configuration, as it is
  meta->step_device_reads = step_reads_;
  if (step_ >= 0) {  // the current step's so far
    if (meta->step_device_reads.size() <= static_cast<size_t>(step_)) meta->step_device_reads.resize(step_ + 1, 0);
    meta->step_device_reads[step_] += static_cast<uint32_t>(device_reads() - reads_mark_);
  }
  for (auto& [k, t] : timings_) {
    auto pt = std::make_unique<schema::PhaseTimingT>();
    pt->step = k.first;
    pt->phase = static_cast<schema::Phase>(k.second);
    pt->ns = t.ns;
    pt->own_ns = t.own;
    meta->phase_timings.push_back(std::move(pt));
  }
}

void Recorder::write_meta(schema::RunMetaT meta) {
  OwnScope own(own_);
  add_phase_timings(&meta);
  builder_->write_meta(meta);
}

size_t Recorder::relabel_as_evaluation(const std::vector<uint64_t>& roots) {
  for (uint64_t id : roots) {
    const schema::EventT* ev = builder_->find_event(id);
    if (!ev || ev->phase != schema::Phase::Forward || ev->t_end_ns < ev->t_begin_ns) continue;
    const int64_t spent = ev->t_end_ns - ev->t_begin_ns;
    const int64_t own = std::max<int64_t>(0, ev->own_ns);
    PhaseTime& fwd = timings_[{ev->step, static_cast<int>(schema::Phase::Forward)}];
    PhaseTime& eval = timings_[{ev->step, static_cast<int>(schema::Phase::Evaluation)}];
    fwd.ns -= spent;
    fwd.own -= own;
    eval.ns += spent;
    eval.own += own;
  }
  return builder_->relabel_subtrees(roots, schema::Phase::Evaluation);
}

void Recorder::flush() {
  OwnScope own(own_);
  batch_.resolve();  // the step's records get their device statistics before they are written
  dedup_.clear();    // their statistics' pointers (DedupEntry::stats) go with them
  dedup_grads_.clear();
  last_stats_ = nullptr;
  schema::SourceFilesT fresh = new_sources();  // before the step's events, which end its flush
  if (!fresh.files.empty()) builder_->write_sources(std::move(fresh));
  builder_->flush();
}

/// Source entries of the files not written yet (ids sources_written_ ..),
/// marked written. File ids are dense and never change.
schema::SourceFilesT Recorder::new_sources() {
  schema::SourceFilesT sources;
  for (uint32_t id = sources_written_; id < file_paths_.size(); ++id) {
    auto f = std::make_unique<schema::SourceFileT>();
    f->id = id;
    f->path = file_paths_[id];
    f->display_path = paths_.display_path(f->path);
    if (paths_.path_traced(f->path)) f->text = read_text(f->path);
    sources.files.push_back(std::move(f));
  }
  sources_written_ = static_cast<uint32_t>(file_paths_.size());
  return sources;
}

RecorderStats Recorder::finalize(schema::RunMetaT meta) {
  set_phase(0);
  close_phase_timing();
  if (finalized_) return stats();
  finalized_ = true;
  spill_.reset();
  batch_.resolve();  // the last records' device statistics (counted in the meta below)
  last_stats_ = nullptr;
  add_phase_timings(&meta);
  const int64_t t_end = now();
  const int64_t own_end = own_.total();
  for (const Open& o : stack_) set_own(o.id, t_end, o.own0, own_end);  // the builder ends them at t_end
  stack_.clear();
  auto status = builder_->finalize(new_sources(), std::move(meta), t_end);
  if (!status.is_ok()) throw std::runtime_error(status.message);
  return stats();
}

RecorderStats Recorder::stats() const {
  const auto w = builder_->writer_stats();
  RecorderStats s;
  s.chunks = w.chunks;
  s.raw_bytes = w.raw_bytes;
  s.file_bytes = w.file_bytes;
  s.backlog_bytes = w.backlog_bytes;
  s.peak_backlog_bytes = w.peak_backlog_bytes;
  s.compress_seconds = w.compress_seconds;
  s.writer_spilled_chunks = w.spilled_chunks;
  s.writer_spilled_bytes = w.spilled_bytes;
  s.encoder_threads = w.encoder_threads;
  s.statistics_threads = statistics_threads();
  s.shared_records = builder_->shared_records();
  s.shared_bytes = builder_->shared_bytes();
  s.bytes_kept = builder_->bytes_kept();
  s.events = builder_->events_begun();
  s.tensors = builder_->tensors_added();
  s.late_grads = late_grads_;
  s.budget_refused = budget_.refused();
  s.budget_refused_bytes = budget_.refused_bytes();
  s.peak_spilled_bytes = peak_spilled_;
  s.spill_error = spill_error_;
  s.spill_lost_updates = spill_lost_updates_;
  return s;
}

}  // namespace tvis::recorder
