#include "py_recorder.h"

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/functions/accumulate_grad.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

#include <pybind11/stl.h>

#include "device_reads.h"
#include "device_stats.h"
#include "py_records.h"

namespace tvis::recorder {

namespace {

PyRecorder* g_profiled = nullptr;  // the recorder whose profile function is installed

/// The tensor whose values `obj` (a torch.Tensor) holds on this rank: itself,
/// or for a tensor without data of its own (a wrapper subclass) what it
/// wraps: a DTensor's local part `_local_tensor`, an AsyncCollectiveTensor's
/// result (its wait(): the collective the program already started, waited
/// for as the program's next use of it would; its own state is left as it
/// was); nullopt when there is no readable data (a parameter FSDP freed:
/// storage resized to 0). Starts no collective.
std::optional<at::Tensor> readable(py::handle obj) {
  at::Tensor t = THPVariable_Unpack(obj.ptr());
  auto has_data = [](const at::Tensor& x) {  // (sparse and other layouts: read as before)
    if (x.layout() != at::kStrided || x.numel() == 0) return true;
    return x.has_storage() && x.storage().data() != nullptr &&
           x.storage().nbytes() >= static_cast<size_t>((x.storage_offset() + 1) * x.element_size());
  };
  if (has_data(t)) return t;
  py::object inner;
  if (PyObject_HasAttrString(obj.ptr(), "_local_tensor"))
    inner = py::reinterpret_borrow<py::object>(obj).attr("_local_tensor");
  else if (PyObject_HasAttrString(obj.ptr(), "elem") && PyObject_HasAttrString(obj.ptr(), "wait"))
    inner = py::reinterpret_borrow<py::object>(obj).attr("wait")();
  if (inner && THPVariable_Check(inner.ptr())) {
    at::Tensor l = THPVariable_Unpack(inner.ptr());
    if (has_data(l)) return l;
  }
  return std::nullopt;
}

int profile_fn(PyObject*, PyFrameObject* frame, int what, PyObject*) {
  if ((what == PyTrace_CALL || what == PyTrace_RETURN) && g_profiled) g_profiled->on_profile(frame, what);
  return 0;
}

RecorderOptions options_of(const std::string& path, const py::dict& config, std::vector<std::string> exclude_dirs,
                           int zstd_level, int64_t data_chunk_bytes, const py::object& dense_zstd_level,
                           bool update_values, uint64_t spill_snapshot_bytes) {
  RecorderOptions o;
  o.path = path;
  o.config = run_config_from(config);
  o.exclude_dirs = std::move(exclude_dirs);
  o.zstd_level = zstd_level;
  o.data_chunk_bytes = data_chunk_bytes;
  if (!dense_zstd_level.is_none()) o.dense_zstd_level = dense_zstd_level.cast<int>();
  o.update_values = update_values;
  o.spill_snapshot_bytes = spill_snapshot_bytes;
  return o;
}

py::dict stats_dict(const RecorderStats& s) {
  py::dict d;
  d["chunks"] = s.chunks;
  d["raw_bytes"] = s.raw_bytes;
  d["file_bytes"] = s.file_bytes;
  d["backlog_bytes"] = s.backlog_bytes;
  d["peak_backlog_bytes"] = s.peak_backlog_bytes;
  d["compress_seconds"] = s.compress_seconds;
  d["bytes_kept"] = s.bytes_kept;
  d["events"] = s.events;
  d["tensors"] = s.tensors;
  d["late_grads"] = s.late_grads;
  d["budget_refused"] = s.budget_refused;
  d["budget_refused_bytes"] = s.budget_refused_bytes;
  d["peak_spilled_bytes"] = s.peak_spilled_bytes;
  d["spill_error"] = s.spill_error;
  d["spill_lost_updates"] = s.spill_lost_updates;
  d["writer_spilled_chunks"] = s.writer_spilled_chunks;
  d["writer_spilled_bytes"] = s.writer_spilled_bytes;
  d["encoder_threads"] = s.encoder_threads;
  d["statistics_threads"] = s.statistics_threads;
  d["shared_records"] = s.shared_records;
  d["shared_bytes"] = s.shared_bytes;
  return d;
}

}  // namespace

PyRecorder::PyRecorder(const std::string& path, const py::dict& config, std::vector<std::string> exclude_dirs,
                       int zstd_level, int64_t data_chunk_bytes, py::object dense_zstd_level, bool update_values,
                       uint64_t spill_snapshot_bytes)
    : core_(options_of(path, config, exclude_dirs, zstd_level, data_chunk_bytes, dense_zstd_level, update_values,
                       spill_snapshot_bytes)),
      filter_(core_.config().project_dir, std::move(exclude_dirs)) {}

void PyRecorder::add_detail(uint64_t id, py::handle detail) { core_.add_detail(id, event_detail(detail)); }

std::vector<int64_t> PyRecorder::tensors(uint64_t event, int role, py::handle obj, bool whole_rows) {
  OwnScope own(core_.own_clock());
  std::vector<int64_t> ids;
  int slot = 0;
  walk(obj, role, event, ids, slot, 0, whole_rows);
  core_.list_on_event(event, role, ids);
  return ids;
}

int64_t PyRecorder::tensor(py::handle obj, int role, int64_t event, const std::string& name, int slot) {
  if (!THPVariable_Check(obj.ptr())) throw py::type_error("tvis: Recorder.tensor takes a torch.Tensor");
  std::optional<at::Tensor> t = readable(obj);
  if (!t) return -1;  // no data on this rank
  return core_.tensor(*t, role, event, name, slot);
}

void PyRecorder::walk(py::handle obj, int role, uint64_t event, std::vector<int64_t>& ids, int& slot, int depth,
                      bool whole_rows) {
  if (THPVariable_Check(obj.ptr())) {
    std::optional<at::Tensor> t = readable(obj);
    if (!t) {  // no data on this rank (a freed FSDP parameter): its slot stays empty
      ++slot;
      return;
    }
    ids.push_back(core_.tensor(*t, role, static_cast<int64_t>(event), "", slot++, whole_rows));
  } else if (depth < 3 && (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj))) {
    for (py::handle x : obj) walk(x, role, event, ids, slot, depth + 1, whole_rows);
  } else if (depth < 3 && py::isinstance<py::dict>(obj)) {
    for (auto kv : py::reinterpret_borrow<py::dict>(obj))
      walk(kv.second, role, event, ids, slot, depth + 1, whole_rows);
  }
}

void PyRecorder::on_grad(uint64_t event, int64_t output_nr, py::handle /*grad_inputs*/, py::handle grad_outputs) {
  if (core_.paused()) return;
  OwnScope own(core_.own_clock());
  auto seq = py::reinterpret_borrow<py::sequence>(grad_outputs);
  if (output_nr < 0 || output_nr >= static_cast<int64_t>(py::len(seq))) return;
  py::handle g = seq[output_nr];
  if (!THPVariable_Check(g.ptr())) return;
  std::optional<at::Tensor> t = readable(g);
  if (t) core_.on_grad(event, *t);
}

namespace {

/// The native form of `grad_fn.register_hook(partial(rec.on_grad, event, output_nr))`.
struct GradHook : torch::autograd::FunctionPostHook {
  GradHook(PyRecorder* rec, std::shared_ptr<bool> alive, uint64_t event, int64_t output_nr)
      : rec(rec), alive(std::move(alive)), event(event), output_nr(output_nr) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& grad_inputs,
                                            const torch::autograd::variable_list& grad_outputs) override {
    if (output_nr < static_cast<int64_t>(grad_outputs.size()) && grad_outputs[output_nr].defined()) {
      py::gil_scoped_acquire gil;
      if (*alive) rec->on_node_grad(event, grad_outputs[output_nr]);
    }
    return grad_inputs;
  }
  PyRecorder* rec;
  std::shared_ptr<bool> alive;  // read under the GIL
  uint64_t event;
  int64_t output_nr;
};

}  // namespace

void PyRecorder::module_output(uint64_t event, py::handle output) {
  tensors(event, 1, output);
  py::handle first = output;
  if (py::isinstance<py::tuple>(output) || py::isinstance<py::list>(output)) {
    if (py::len(output) == 0) return;
    first = output[py::int_(0)];
  }
  if (!THPVariable_Check(first.ptr())) return;
  const at::Tensor& t = THPVariable_Unpack(first.ptr());
  const auto& node = t.grad_fn();
  if (!node) return;
  node->add_post_hook(std::make_unique<GradHook>(this, alive_, event, static_cast<int64_t>(t.output_nr())));
}

void PyRecorder::on_node_grad(uint64_t event, const at::Tensor& grad) {
  if (core_.paused() || grads_quiet_) return;
  OwnScope own(core_.own_clock());
  try {
    core_.on_grad(event, grad);
  } catch (const std::exception&) {
    // never into the user's backward: the event keeps no dL/d(output), as for a late gradient
  }
}

namespace {

/// Units of a small contiguous float32 CPU tensor whose peak (max over every
/// dimension but `unit_dim`) is 0: amax(dims).eq(0).sum() in one loop, without
/// three operator dispatches. A unit holding a NaN peaks at NaN (as amax), so
/// it is not dead.
int64_t dead_units_f32(const float* v, int64_t outer, int64_t units, int64_t inner) {
  std::vector<float> peak(static_cast<size_t>(units), -std::numeric_limits<float>::infinity());
  std::vector<uint8_t> nan(static_cast<size_t>(units), 0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t u = 0; u < units; ++u, v += inner)
      for (int64_t i = 0; i < inner; ++i) {
        const float x = v[i];
        if (x != x) nan[u] = 1;
        else if (x > peak[u]) peak[u] = x;
      }
  int64_t dead = 0;
  for (int64_t u = 0; u < units; ++u) dead += !nan[u] && peak[u] == 0.0f;
  return dead;
}

// Below this many values the operator dispatches cost more than the values.
constexpr int64_t kDeadUnitsLoopMax = int64_t(1) << 16;

}  // namespace

std::vector<at::Tensor> PyRecorder::graph_leaves(const at::Tensor& loss) {
  using torch::autograd::Node;
  std::vector<at::Tensor> leaves;
  if (!loss.defined() || !loss.grad_fn()) return leaves;
  std::vector<Node*> todo{loss.grad_fn().get()};  // the graph lives while `loss` does (GIL held)
  std::unordered_set<Node*> seen;
  while (!todo.empty()) {
    Node* fn = todo.back();
    todo.pop_back();
    if (fn == nullptr || !seen.insert(fn).second) continue;
    if (const auto* acc = dynamic_cast<const torch::autograd::AccumulateGrad*>(fn))
      if (acc->variable.defined()) leaves.push_back(acc->variable);
    for (const auto& edge : fn->next_edges()) todo.push_back(edge.function.get());
  }
  return leaves;
}

namespace {

// dead_units_f32 over a small float32 host tensor, read in place (no autograd
// involved: only its values are read); nullopt for any other tensor.
std::optional<int64_t> dead_units_on_host(const at::Tensor& x, int64_t unit_dim) {
  if (!host_f32_loopable(x) || x.numel() == 0 || x.numel() > kDeadUnitsLoopMax || unit_dim < 0 ||
      unit_dim >= x.dim())
    return std::nullopt;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < unit_dim; ++i) outer *= x.size(i);
  for (int64_t i = unit_dim + 1; i < x.dim(); ++i) inner *= x.size(i);
  return dead_units_f32(x.data_ptr<float>(), outer, x.size(unit_dim), inner);
}

// The same count by torch's operators, as a 0-dim int64 tensor on the output's device (no sync).
at::Tensor dead_units_by_operators(const at::Tensor& output, int64_t unit_dim) {
  c10::NoGradGuard no_grad;
  const at::Tensor x = output.detach();
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (i != unit_dim) dims.push_back(i);
  return x.amax(dims).eq(0).sum();
}

}  // namespace

at::Tensor PyRecorder::dead_units(const at::Tensor& output, int64_t unit_dim) {
  if (std::optional<int64_t> n = dead_units_on_host(output, unit_dim)) return at::scalar_tensor(*n, at::kLong);
  return dead_units_by_operators(output, unit_dim);
}

bool PyRecorder::note_dead_units(uint64_t event, const at::Tensor& output) {
  if (!output.defined() || output.dim() < 2 || !output.is_floating_point() || output.numel() == 0 ||
      dead_pending_.size() >= kMaxPendingDeadUnits)
    return false;
  const int64_t unit_dim = output.dim() == 3 ? 2 : 1;  // [B, T, F]: the features; else the channels
  const int64_t units = output.size(unit_dim);
  if (std::optional<int64_t> n = dead_units_on_host(output, unit_dim))
    dead_pending_.push_back({event, at::Tensor(), *n, units, output.numel() / units});
  else
    dead_pending_.push_back({event, dead_units_by_operators(output, unit_dim), 0, units, output.numel() / units});
  return true;
}

void PyRecorder::resolve_dead_units() {
  std::vector<PendingDeadUnits> pending;
  pending.swap(dead_pending_);
  // The counts: a CPU one read as it is; a device's, stacked and read in one copy per device.
  std::vector<int64_t> dead(pending.size(), 0);
  std::map<std::string, std::vector<size_t>> on_device;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (!pending[i].dead.defined()) dead[i] = pending[i].count;
    else if (pending[i].dead.is_cpu()) dead[i] = pending[i].dead.item<int64_t>();
    else on_device[pending[i].dead.device().str()].push_back(i);
  }
  for (const auto& [device, index] : on_device) {
    std::vector<at::Tensor> counts;
    for (size_t i : index) counts.push_back(pending[i].dead);
    const at::Tensor host = read_to_host(at::stack(counts));
    const int64_t* v = host.data_ptr<int64_t>();
    for (size_t k = 0; k < index.size(); ++k) dead[index[k]] = v[k];
  }
  for (size_t i = 0; i < pending.size(); ++i) {
    const PendingDeadUnits& p = pending[i];
    std::vector<std::unique_ptr<schema::KeyValueT>> kvs;
    kvs.push_back(detail_integer("dead_units", dead[i]));
    kvs.push_back(detail_integer("units", p.units));
    kvs.push_back(detail_integer("unit_samples", p.unit_samples));
    core_.add_detail(p.event, std::move(kvs));
  }
}

void PyRecorder::hook_enter() {
  core_.own_enter();
  suspend_profile();
}

void PyRecorder::hook_exit() {
  resume_profile();
  core_.own_exit();
}

void PyRecorder::add_record(const std::string& table, py::handle d) {
  Record r = record_from_dict(table, d, core_.step());
  core_.add_record(std::move(r.body), r.span.step_first, r.span.step_last, r.span.event_first, r.span.event_last);
}
void PyRecorder::write_meta(const py::dict& d) { core_.write_meta(meta_from(d)); }

py::dict PyRecorder::finalize(const py::dict& d) {
  stop_profile();
  return stats_dict(core_.finalize(meta_from(d)));
}

py::dict PyRecorder::stats() const { return stats_dict(core_.stats()); }

void PyRecorder::start_profile() {
  g_profiled = this;
  profiled_thread_ = PyThreadState_Get();
  suspended_ = false;
  PyEval_SetProfile(profile_fn, nullptr);
}

void PyRecorder::stop_profile() {
  if (g_profiled == this) {
    if (!suspended_ || PyThreadState_Get() != profiled_thread_) PyEval_SetProfile(nullptr, nullptr);
    g_profiled = nullptr;
  }
  suspended_ = false;
}

void PyRecorder::suspend_profile() {
  if (g_profiled != this || suspended_ || PyThreadState_Get() != profiled_thread_) return;
  PyEval_SetProfile(nullptr, nullptr);
  suspended_ = true;
}

void PyRecorder::resume_profile() {
  if (!suspended_ || PyThreadState_Get() != profiled_thread_) return;
  suspended_ = false;
  if (g_profiled == this) PyEval_SetProfile(profile_fn, nullptr);
}

std::pair<uint32_t, uint32_t> PyRecorder::call_site(PyFrameObject* frame) {
  std::pair<uint32_t, uint32_t> site{0, 0};
  PyFrameObject* back = PyFrame_GetBack(frame);
  if (!back) return site;
  PyCodeObject* bc = PyFrame_GetCode(back);
  const char* fn = PyUnicode_AsUTF8(bc->co_filename);
  if (!fn) PyErr_Clear();
  if (fn && !filter_.path_excluded(fn))
    site = {core_.file_id(fn), static_cast<uint32_t>(PyFrame_GetLineNumber(back))};
  Py_DECREF(bc);
  Py_DECREF(back);
  return site;
}

void PyRecorder::on_profile(PyFrameObject* frame, int what) {
  if (core_.paused()) return;
  PyCodeObject* code = PyFrame_GetCode(frame);
  const std::string* path = nullptr;
  // Most calls (torch's, the library's) are dismissed here by one lookup, before the own clock is
  // read twice: tens of nanoseconds a call, left in the user's time.
  if (!filter_.traced(code, &path)) {
    Py_DECREF(code);
    return;
  }
  OwnScope own(core_.own_clock());  // the profile function's work is tvis's, inside the calls it times
  if (what == PyTrace_CALL) {
    const auto [call_file, call_line] = call_site(frame);
#if PY_VERSION_HEX >= 0x030B0000
    PyObject* qn = code->co_qualname;
#else
    PyObject* qn = code->co_name;
#endif
    const char* name = PyUnicode_AsUTF8(qn);
    if (!name) {
      PyErr_Clear();
      name = "?";
    }
    const uint32_t def_file = core_.file_id(*path);
    core_.begin(static_cast<int>(schema::EventKind::FunctionCall), name, "", call_file, call_line, def_file,
                static_cast<uint32_t>(code->co_firstlineno), frame);
  } else {
    core_.end_frame(frame);
  }
  Py_DECREF(code);
}

}  // namespace tvis::recorder
