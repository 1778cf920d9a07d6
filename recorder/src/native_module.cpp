// native_module.cpp: `_tvis_native`, the private pybind11 module behind the
// `tvis` package. One Recorder per process records one run.
//
// Threading: every entry point runs with the GIL held (hooks, the profile
// function, autograd node hooks called from Python), which serializes access.
// Nothing here changes a tensor, an RNG or a torch flag of the user's program.
#include <ATen/ATen.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

#include <frameobject.h>
#include <pybind11/stl.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "code_filter.h"
#include "py_records.h"
#include "tensor_capture.h"
#include "tvis/recorder/run_builder.h"

namespace py = pybind11;
using namespace tvis;
using namespace tvis::recorder;

namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Recorder;
Recorder* g_profiled = nullptr;  // the recorder whose profile function is installed
int profile_fn(PyObject*, PyFrameObject* frame, int what, PyObject*);

class Recorder {
 public:
  Recorder(const std::string& path, int64_t max_elems, int samples, const std::string& project_dir,
           std::vector<std::string> exclude_dirs, int zstd_level, int64_t data_chunk_bytes, py::object dense_zstd_level)
      : filter_(project_dir, std::move(exclude_dirs)), project_dir_(project_dir), samples_(samples) {
    capture_.max_elems = max_elems;
    BuilderOptions o;
    o.path = path;
    o.zstd_level = zstd_level;
    if (!dense_zstd_level.is_none()) o.dense_zstd_level = dense_zstd_level.cast<int>();
    o.data_chunk_bytes = static_cast<uint64_t>(data_chunk_bytes);
    auto b = RunBuilder::create(o);
    if (!b.ok()) throw std::runtime_error(b.status().message);
    builder_ = std::move(b.value());
    t0_ = steady_ns();
    phase_t0_ = t0_;
  }
  ~Recorder() { stop_profile(); }

  int64_t now() const { return steady_ns() - t0_; }

  // ---- files ---------------------------------------------------------------
  uint32_t file_id(const std::string& path) {
    auto it = files_.find(path);
    if (it != files_.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(file_paths_.size());
    file_paths_.push_back(path);
    files_.emplace(path, id);
    return id;
  }

  // ---- events --------------------------------------------------------------
  uint64_t begin(int kind, const std::string& name, const std::string& class_name, uint32_t call_file,
                 uint32_t call_line, uint32_t def_file, uint32_t def_line, PyFrameObject* frame = nullptr) {
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
    const uint64_t id = builder_->begin_event(std::move(ev));
    stack_.push_back({id, frame});
    return id;
  }

  /// Ends `id` and every event opened after it that is still open.
  void end(uint64_t id) {
    for (size_t i = stack_.size(); i-- > 0;) {
      if (stack_[i].id != id) continue;
      const int64_t t = now();
      while (stack_.size() > i) {
        builder_->end_event(stack_.back().id, t);
        stack_.pop_back();
      }
      return;
    }
  }

  uint64_t instant(int kind, const std::string& name) {
    const uint64_t id = begin(kind, name, "", 0, 0, 0, 0);
    end(id);
    return id;
  }

  void add_detail(uint64_t id, py::handle kvs) {
    if (auto* ev = builder_->find_event(id)) {
      for (auto& kv : key_values(kvs)) ev->detail.push_back(std::move(kv));
    }
  }

  // ---- step and phase ------------------------------------------------------
  void set_step(int step) {
    close_phase_timing();
    step_ = step;
    dedup_.clear();
    dedup_grads_.clear();
  }
  int step() const { return step_; }

  void set_phase(int phase) {
    if (phase == phase_) return;
    close_phase_timing();
    if (phase_ != 0) instant(static_cast<int>(schema::EventKind::PhaseEnd), "");
    phase_ = phase;
    if (phase_ != 0) instant(static_cast<int>(schema::EventKind::PhaseBegin), "");
  }
  int phase() const { return phase_; }
  void set_batch_rows(int64_t rows) { batch_rows_ = rows; }

  // ---- tensors -------------------------------------------------------------
  /// Records one tensor. For Input/Output roles a tensor already recorded in
  /// this step as one of them and unchanged since (same TensorImpl alive,
  /// same version) is not recorded again: its id is returned. GradOutput the
  /// same among gradients (a module whose output is its last child's output,
  /// a BasicBlock, a Sequential, gets the very tensor its child got).
  int64_t tensor(const at::Tensor& t, int role, int64_t event, const std::string& name, int slot) {
    const bool grad = role == static_cast<int>(schema::TensorRole::GradOutput);
    auto* dedup = (role == 0 || role == 1) ? &dedup_ : grad ? &dedup_grads_ : nullptr;
    if (t.is_inference()) dedup = nullptr;
    c10::TensorImpl* impl = t.unsafeGetTensorImpl();
    if (dedup) {
      auto it = dedup->find(impl);
      if (it != dedup->end() && !it->second.impl.expired() &&
          it->second.version == impl->version_counter().current_version()) {
        last_l2_ = it->second.l2;
        return static_cast<int64_t>(it->second.id);
      }
    }
    CaptureOptions o = capture_;
    o.min_rows = (t.dim() > 0 && t.size(0) == batch_rows_) ? samples_ : 0;
    Captured c = capture_tensor(t, o);
    c.rec->event = event;
    c.rec->role = static_cast<schema::TensorRole>(role);
    c.rec->slot = slot;
    c.rec->name = name;
    c.rec->step = step_;
    last_l2_ = c.rec->stats->l2;
    const uint64_t id = builder_->add_tensor(std::move(c.rec), c.values, c.size, c.f32, c.mostly_zero);
    if (dedup) {
      dedup->insert_or_assign(impl, DedupEntry{c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>(
                                                   t.getIntrusivePtr()),
                                               impl->version_counter().current_version(), id, last_l2_});
    }
    return static_cast<int64_t>(id);
  }

  /// Records every tensor in `obj` (a tensor, or tuple/list/dict of them, one
  /// level deep plus nested tuples/lists) and lists the ids on the event for
  /// Input (0) and Output (1) roles.
  std::vector<int64_t> tensors(uint64_t event, int role, py::handle obj) {
    std::vector<int64_t> ids;
    int slot = 0;
    walk(obj, role, event, ids, slot, 0);
    if (auto* ev = builder_->find_event(event)) {
      auto& dst = role == 0 ? ev->inputs : ev->outputs;
      if (role == 0 || role == 1)
        for (auto id : ids) dst.push_back(static_cast<uint64_t>(id));
    }
    return ids;
  }

  /// Autograd node hook: grad_outputs[output_nr] is dL/d(module output).
  void on_grad(uint64_t event, int64_t output_nr, py::handle /*grad_inputs*/, py::handle grad_outputs) {
    if (paused_) return;
    auto seq = py::reinterpret_borrow<py::sequence>(grad_outputs);
    if (output_nr < 0 || output_nr >= static_cast<int64_t>(py::len(seq))) return;
    py::handle g = seq[output_nr];
    if (!THPVariable_Check(g.ptr())) return;
    const at::Tensor& grad = THPVariable_Unpack(g.ptr());
    if (!grad.defined()) return;
    schema::EventT* ev = builder_->find_event(event);
    if (!ev) {
      ++late_grads_;
      return;
    }
    const int64_t id = tensor(grad, static_cast<int>(schema::TensorRole::GradOutput), static_cast<int64_t>(event), "", 0);
    ev = builder_->find_event(event);
    ev->grad_outputs.push_back(static_cast<uint64_t>(id));
    const double l2 = last_l2_;
    ev->grad_norm = ev->grad_norm < 0 ? l2 : std::sqrt(ev->grad_norm * ev->grad_norm + l2 * l2);
    if (grad.dim() > 0 && grad.size(0) == batch_rows_ && ev->sample_grad_norms.empty())
      ev->sample_grad_norms = leading_row_norms(grad, samples_);
  }

  /// Records p_after - p_before, computed in the parameter's dtype.
  int64_t update(int64_t event, const std::string& name, const at::Tensor& after, const at::Tensor& before) {
    const at::Tensor delta = param_delta(after, before);
    return tensor(delta, static_cast<int>(schema::TensorRole::Update), event, name, 0);
  }

  // ---- optimizer step --------------------------------------------------------
  /// Before optimizer.step(): records each parameter's weight (role Weight)
  /// and .grad (role Grad; -1 when None) on `event`, and keeps an exact copy
  /// of the weight for params_after(). Returns [(weight id, grad id)].
  std::vector<std::pair<int64_t, int64_t>> params_before(int64_t event, const std::vector<std::string>& names,
                                                          const std::vector<at::Tensor>& params) {
    if (names.size() != params.size()) throw std::invalid_argument("params_before: one name per parameter");
    std::vector<std::pair<int64_t, int64_t>> ids;
    pending_.clear();
    for (size_t i = 0; i < params.size(); ++i) {
      const at::Tensor& p = params[i];
      const int64_t wid = tensor(p, static_cast<int>(schema::TensorRole::Weight), event, names[i], 0);
      const at::Tensor& g = p.grad();
      const int64_t gid = g.defined() ? tensor(g, static_cast<int>(schema::TensorRole::Grad), event, names[i], 0) : -1;
      ids.emplace_back(wid, gid);
      pending_.push_back({names[i], p.unsafeGetTensorImpl(), snapshot(i, p)});
    }
    return ids;
  }

  /// After optimizer.step(): records the update p_after - p_before (role
  /// Update), computed in the parameter's dtype, for the parameters given to
  /// params_before() (the same list). Returns the update ids.
  std::vector<int64_t> params_after(int64_t event, const std::vector<at::Tensor>& params) {
    if (params.size() != pending_.size()) throw std::invalid_argument("params_after: not the params_before() list");
    std::vector<int64_t> ids;
    for (size_t i = 0; i < params.size(); ++i) {
      Pending& b = pending_[i];
      if (params[i].unsafeGetTensorImpl() != b.impl) throw std::invalid_argument("params_after: not the params_before() list");
      param_delta_into(b.before, params[i]);  // `before` now holds the update
      ids.push_back(tensor(b.before, static_cast<int>(schema::TensorRole::Update), event, b.name, 0));
      if (b.before.device().is_cpu()) spare_[i] = std::move(b.before);  // reused next step: no fresh pages
    }
    pending_.clear();
    return ids;
  }

  // ---- records -------------------------------------------------------------
  void add_optimizer_step(const py::dict& d) {
    auto r = std::make_unique<schema::OptimizerStepRecordT>();
    r->step = get<int>(d, "step", step_);
    r->event = get<uint64_t>(d, "event", 0);
    r->optimizer_class = get<std::string>(d, "optimizer_class", "");
    if (d.contains("groups"))
      for (py::handle g : d["groups"]) {
        auto gd = py::reinterpret_borrow<py::dict>(g);
        auto pg = std::make_unique<schema::ParamGroupT>();
        pg->hyper = key_values(gd["hyper"]);
        pg->params = gd["params"].cast<std::vector<std::string>>();
        r->groups.push_back(std::move(pg));
      }
    if (d.contains("params"))
      for (py::handle p : d["params"]) {
        auto t = py::reinterpret_borrow<py::tuple>(p);
        auto pr = std::make_unique<schema::ParamRecordT>();
        pr->name = t[0].cast<std::string>();
        pr->weight = t[1].cast<uint64_t>();
        pr->grad = t[2].cast<int64_t>();
        pr->update = t[3].cast<int64_t>();
        r->params.push_back(std::move(pr));
      }
    builder_->add_optimizer_step(std::move(r));
  }

  void add_loss(const py::dict& d) {
    auto r = std::make_unique<schema::LossRecordT>();
    r->step = get<int>(d, "step", step_);
    r->event = get<uint64_t>(d, "event", 0);
    r->call = get<std::string>(d, "call", "");
    r->reduction = get<std::string>(d, "reduction", "");
    if (d.contains("args")) r->args = key_values(d["args"]);
    r->value = get<double>(d, "value", 0.0);
    r->value_repr = get<std::string>(d, "value_repr", "");
    r->targets = get<int64_t>(d, "targets", -1);
    r->logits = get<int64_t>(d, "logits", -1);
    if (d.contains("samples"))
      for (py::handle s : d["samples"]) {
        auto sd = py::reinterpret_borrow<py::dict>(s);
        auto sl = std::make_unique<schema::SampleLossT>();
        sl->sample = get<int>(sd, "sample", -1);
        sl->batch_row = get<int64_t>(sd, "batch_row", -1);
        sl->logits = get<int64_t>(sd, "logits", -1);
        sl->target = get<int64_t>(sd, "target", -1);
        sl->p_target = get<double>(sd, "p_target", 0.0);
        sl->neg_log_p = get<double>(sd, "neg_log_p", 0.0);
        sl->loss = get<double>(sd, "loss", 0.0);
        sl->predicted = get<int64_t>(sd, "predicted", -1);
        r->samples.push_back(std::move(sl));
      }
    if (d.contains("tokens") && !d["tokens"].is_none()) {
      auto td = py::reinterpret_borrow<py::dict>(d["tokens"]);
      auto tl = std::make_unique<schema::TokenLayoutT>();
      tl->batch = get<int64_t>(td, "batch", 0);
      tl->tokens = get<int64_t>(td, "tokens", 0);
      tl->vocab = get<int64_t>(td, "vocab", 0);
      tl->ignore_index = get<int64_t>(td, "ignore_index", -100);
      if (td.contains("ignored")) tl->ignored = td["ignored"].cast<std::vector<uint64_t>>();
      tl->token_losses = get<int64_t>(td, "token_losses", -1);
      r->tokens = std::move(tl);
    }
    builder_->add_loss(std::move(r));
  }

  /// The followed samples of one batch (the dict shape is in py_records.h).
  void add_samples(const py::dict& d) { builder_->add_samples(sample_batch_from(d, step_)); }

  /// Insight records of this step: attention, Grad-CAM, embeddings, embedding
  /// tables, library attention (the dict shape is in py_records.h).
  void add_insights(const py::dict& d) { builder_->add_insights(insight_batch_from(d, step_)); }

  void write_meta(const py::dict& d) { builder_->write_meta(meta_from(d)); }
  /// Writes what the step produced, then the source text of files first seen
  /// since the last flush (a killed run keeps both).
  void flush() {
    builder_->flush();
    schema::SourceFilesT fresh = new_sources();
    if (!fresh.files.empty()) builder_->write_sources(std::move(fresh));
  }

  /// Source entries of the files not written yet (ids sources_written_ ..),
  /// and marks them written. File ids are dense and never change.
  schema::SourceFilesT new_sources() {
    schema::SourceFilesT sources;
    const std::string proj = project_dir_.back() == '/' ? project_dir_ : project_dir_ + "/";
    for (uint32_t id = sources_written_; id < file_paths_.size(); ++id) {
      auto f = std::make_unique<schema::SourceFileT>();
      f->id = id;
      f->path = file_paths_[id];
      f->display_path = f->path;
      if (f->path.compare(0, proj.size(), proj) == 0) f->display_path = f->path.substr(proj.size());
      if (filter_.path_traced(f->path)) f->text = read_text(f->path);
      sources.files.push_back(std::move(f));
    }
    sources_written_ = static_cast<uint32_t>(file_paths_.size());
    return sources;
  }

  /// Ends the run: open events end now, the sources not written yet and the final RunMeta are
  /// written, the file is closed. Returns writer statistics.
  py::dict finalize(const py::dict& d) {
    stop_profile();
    set_phase(0);
    close_phase_timing();
    if (finalized_) return stats();
    finalized_ = true;
    auto status = builder_->finalize(new_sources(), meta_from(d), now());
    if (!status.is_ok()) throw std::runtime_error(status.message);
    return stats();
  }

  py::dict stats() const {
    auto s = builder_->writer_stats();
    py::dict d;
    d["chunks"] = s.chunks;
    d["raw_bytes"] = s.raw_bytes;
    d["file_bytes"] = s.file_bytes;
    d["backlog_bytes"] = s.backlog_bytes;
    d["peak_backlog_bytes"] = s.peak_backlog_bytes;
    d["compress_seconds"] = s.compress_seconds;
    d["bytes_kept"] = builder_->bytes_kept();
    d["events"] = builder_->events_begun();
    d["tensors"] = builder_->tensors_added();
    d["late_grads"] = late_grads_;
    return d;
  }

  // ---- project function tracing ----------------------------------------------
  void start_profile() {
    g_profiled = this;
    PyEval_SetProfile(profile_fn, nullptr);
  }
  void stop_profile() {
    if (g_profiled == this) {
      PyEval_SetProfile(nullptr, nullptr);
      g_profiled = nullptr;
    }
  }
  void set_paused(bool p) { paused_ = p; }
  bool paused() const { return paused_; }

  void on_profile(PyFrameObject* frame, int what) {
    if (paused_) return;
    PyCodeObject* code = PyFrame_GetCode(frame);
    const std::string* path = nullptr;
    const bool traced = filter_.traced(code, &path);
    if (!traced) {
      Py_DECREF(code);
      return;
    }
    if (what == PyTrace_CALL) {
      // The call site; none (line 0) when the caller is tvis's own code (the
      // runner starting the script, an emulated DataLoader worker).
      uint32_t call_file = 0, call_line = 0;
      if (PyFrameObject* back = PyFrame_GetBack(frame)) {
        PyCodeObject* bc = PyFrame_GetCode(back);
        const char* fn = PyUnicode_AsUTF8(bc->co_filename);
        if (!fn) PyErr_Clear();
        if (fn && !filter_.path_excluded(fn)) {
          call_file = file_id(fn);
          call_line = static_cast<uint32_t>(PyFrame_GetLineNumber(back));
        }
        Py_DECREF(bc);
        Py_DECREF(back);
      }
#if PY_VERSION_HEX >= 0x030B0000
      PyObject* qn = code->co_qualname;
#else
      PyObject* qn = code->co_name;
#endif
      const char* name = PyUnicode_AsUTF8(qn);
      if (!name) { PyErr_Clear(); name = "?"; }
      const uint32_t def_file = file_id(*path);
      begin(static_cast<int>(schema::EventKind::FunctionCall), name, "", call_file, call_line, def_file,
            static_cast<uint32_t>(code->co_firstlineno), frame);
    } else {
      for (size_t i = stack_.size(); i-- > 0;) {
        if (stack_[i].frame == frame) {
          end(stack_[i].id);
          break;
        }
      }
    }
    Py_DECREF(code);
  }

 private:
  struct Open { uint64_t id; PyFrameObject* frame; };
  struct Pending {  // a parameter between params_before() and params_after()
    std::string name;
    c10::TensorImpl* impl;
    at::Tensor before;  // exact copy of the weight before the step
  };

  /// An exact copy of `p` in the CPU buffer kept for slot `i` when it fits
  /// (warm pages), else in a new tensor like p.
  at::Tensor snapshot(size_t i, const at::Tensor& p) {
    c10::NoGradGuard no_grad;
    if (spare_.size() <= i) spare_.resize(i + 1);
    at::Tensor buf = std::move(spare_[i]);
    if (!buf.defined() || buf.sizes() != p.sizes() || buf.scalar_type() != p.scalar_type() ||
        buf.device() != p.device())
      buf = at::empty(p.sizes(), p.options().requires_grad(false).memory_format(at::MemoryFormat::Contiguous));
    buf.copy_(p.detach());
    return buf;
  }
  struct DedupEntry {
    c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl> impl;
    uint32_t version;
    uint64_t id;
    double l2;  // of the recorded values (grad norms of later users)
  };

  void walk(py::handle obj, int role, uint64_t event, std::vector<int64_t>& ids, int& slot, int depth) {
    if (THPVariable_Check(obj.ptr())) {
      ids.push_back(tensor(THPVariable_Unpack(obj.ptr()), role, static_cast<int64_t>(event), "", slot++));
    } else if (depth < 3 && (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj))) {
      for (py::handle x : obj) walk(x, role, event, ids, slot, depth + 1);
    } else if (depth < 3 && py::isinstance<py::dict>(obj)) {
      for (auto kv : py::reinterpret_borrow<py::dict>(obj)) walk(kv.second, role, event, ids, slot, depth + 1);
    }
  }

  void close_phase_timing() {
    const int64_t t = now();
    if (phase_ != 0) timings_[{step_, phase_}] += t - phase_t0_;
    phase_t0_ = t;
  }

  schema::RunMetaT meta_from(const py::dict& d) {
    schema::RunMetaT m;
    m.kind = schema::RunKind::Training;
    m.script = get<std::string>(d, "script", "");
    if (d.contains("argv")) m.argv = d["argv"].cast<std::vector<std::string>>();
    m.cwd = get<std::string>(d, "cwd", "");
    m.project_dir = get<std::string>(d, "project_dir", "");
    m.python_version = get<std::string>(d, "python_version", "");
    m.torch_version = get<std::string>(d, "torch_version", "");
    m.device = get<std::string>(d, "device", "");
    m.hostname = get<std::string>(d, "hostname", "");
    m.tvis_version = get<std::string>(d, "tvis_version", "");
    m.started_unix_ms = get<int64_t>(d, "started_unix_ms", 0);
    m.finished_unix_ms = get<int64_t>(d, "finished_unix_ms", 0);
    m.steps_requested = get<int>(d, "steps_requested", 0);
    m.steps_recorded = get<int>(d, "steps_recorded", 0);
    m.complete = get<bool>(d, "complete", false);
    m.exit_code = get<int>(d, "exit_code", 0);
    m.exception = get<std::string>(d, "exception", "");
    m.traceback = get<std::string>(d, "traceback", "");
    m.optimizer_class = get<std::string>(d, "optimizer_class", "");
    if (d.contains("notices"))
      for (py::handle n : d["notices"]) {
        auto t = py::reinterpret_borrow<py::tuple>(n);
        auto e = std::make_unique<schema::NoticeT>();
        e->code = py::str(t[0]);
        e->message = py::str(t[1]);
        m.notices.push_back(std::move(e));
      }
    if (d.contains("options")) m.options = key_values(d["options"]);
    for (auto& [k, ns] : timings_) {
      auto pt = std::make_unique<schema::PhaseTimingT>();
      pt->step = k.first;
      pt->phase = static_cast<schema::Phase>(k.second);
      pt->ns = ns;
      m.phase_timings.push_back(std::move(pt));
    }
    return m;
  }

  std::unique_ptr<RunBuilder> builder_;
  CodeFilter filter_;
  std::string project_dir_;
  CaptureOptions capture_;
  int samples_ = 4;
  int64_t batch_rows_ = -1;
  int step_ = 0;
  int phase_ = 0;
  int64_t t0_ = 0, phase_t0_ = 0;
  bool paused_ = false;
  bool finalized_ = false;
  double last_l2_ = 0;
  uint64_t late_grads_ = 0;
  std::vector<Open> stack_;
  std::unordered_map<std::string, uint32_t> files_;
  std::vector<std::string> file_paths_;
  uint32_t sources_written_ = 0;  // files [0, sources_written_) are in SourceFiles chunks
  std::unordered_map<c10::TensorImpl*, DedupEntry> dedup_;        // inputs / outputs of this step
  std::unordered_map<c10::TensorImpl*, DedupEntry> dedup_grads_;  // dL/d(output) of this step
  std::vector<Pending> pending_;    // the optimizer step in progress
  std::vector<at::Tensor> spare_;   // CPU snapshot buffers, by parameter slot
  std::map<std::pair<int, int>, int64_t> timings_;
};

int profile_fn(PyObject*, PyFrameObject* frame, int what, PyObject*) {
  if ((what == PyTrace_CALL || what == PyTrace_RETURN) && g_profiled) g_profiled->on_profile(frame, what);
  return 0;
}

}  // namespace

void register_run_file(py::module_& m);  // run_file.cpp

PYBIND11_MODULE(_tvis_native, m) {
  register_run_file(m);
  m.doc() = "tvis recorder core (private; use the tvis package)";
  m.attr("torch_version") = TVIS_TORCH_VERSION;
  py::class_<Recorder>(m, "Recorder")
      .def(py::init<const std::string&, int64_t, int, const std::string&, std::vector<std::string>, int, int64_t,
                    py::object>(),
           py::arg("path"), py::arg("max_elems"), py::arg("samples"), py::arg("project_dir"),
           py::arg("exclude_dirs"), py::arg("zstd_level") = 1, py::arg("data_chunk_bytes") = 8 << 20,
           py::arg("dense_zstd_level") = py::none())
      .def("now", &Recorder::now)
      .def("file_id", &Recorder::file_id)
      .def("begin", [](Recorder& r, int kind, const std::string& name, const std::string& cls, uint32_t cf,
                       uint32_t cl, uint32_t df, uint32_t dl) { return r.begin(kind, name, cls, cf, cl, df, dl); })
      .def("end", &Recorder::end)
      .def("instant", &Recorder::instant)
      .def("add_detail", &Recorder::add_detail)
      .def("set_step", &Recorder::set_step)
      .def("step", &Recorder::step)
      .def("set_phase", &Recorder::set_phase)
      .def("phase", &Recorder::phase)
      .def("set_batch_rows", &Recorder::set_batch_rows)
      .def("tensor", &Recorder::tensor, py::arg("t"), py::arg("role"), py::arg("event"), py::arg("name") = "",
           py::arg("slot") = 0)
      .def("tensors", &Recorder::tensors)
      .def("on_grad", &Recorder::on_grad)
      .def("update", &Recorder::update)
      .def("params_before", &Recorder::params_before)
      .def("params_after", &Recorder::params_after)
      .def("add_optimizer_step", &Recorder::add_optimizer_step)
      .def("add_loss", &Recorder::add_loss)
      .def("add_samples", &Recorder::add_samples)
      .def("add_insights", &Recorder::add_insights)
      .def("write_meta", &Recorder::write_meta)
      .def("flush", &Recorder::flush)
      .def("finalize", &Recorder::finalize)
      .def("stats", &Recorder::stats)
      .def("start_profile", &Recorder::start_profile)
      .def("stop_profile", &Recorder::stop_profile)
      .def("set_paused", &Recorder::set_paused)
      .def("paused", &Recorder::paused);
}
