// py_recorder.h: the Python face of Recorder (recorder.h), bound as
// `_tvis_native.Recorder` in native_module.cpp. It converts Python objects
// (tensors inside tuples/lists/dicts, autograd hook arguments, record dicts)
// into Recorder calls and owns the profile function that traces project
// functions. Everything here runs with the GIL held.
#pragma once

#include <pybind11/pybind11.h>  // Python.h first

#include <frameobject.h>

#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "code_filter.h"
#include "tvis/recorder/recorder.h"

namespace tvis::recorder {

namespace py = pybind11;

class PyRecorder {
 public:
  /// `config`: the run's RunConfig as a dict (run_config_from in py_recorder.cpp); the rest are
  /// developer knobs (RecorderOptions), keywords in Python.
  PyRecorder(const std::string& path, const py::dict& config, std::vector<std::string> exclude_dirs,
             int zstd_level, int64_t data_chunk_bytes, py::object dense_zstd_level, bool update_values,
             uint64_t spill_snapshot_bytes);
  ~PyRecorder() {
    stop_profile();
    *alive_ = false;
  }

  Recorder& core() { return core_; }

  /// Adds `detail` (a dict of EventDetail fields: py_records.h event_detail) to event `id`.
  void add_detail(uint64_t id, py::handle detail);
  /// Records every tensor in `obj` (a tensor, or tuple/list/dict of them,
  /// nested up to three levels) and lists the ids on the event for Input (0)
  /// and Output (1) roles.
  /// `whole_rows`: Recorder::tensor's (the top-level call's inputs).
  std::vector<int64_t> tensors(uint64_t event, int role, py::handle obj, bool whole_rows = false);
  /// Recorder::tensor of one torch.Tensor (TypeError otherwise), read as
  /// tensors() reads each (a wrapper subclass's data: DTensor's local part);
  /// -1 when it has no data on this rank.
  int64_t tensor(py::handle obj, int role, int64_t event, const std::string& name, int slot);
  /// Autograd node hook: grad_outputs[output_nr] is dL/d(module output).
  void on_grad(uint64_t event, int64_t output_nr, py::handle grad_inputs, py::handle grad_outputs);
  /// A module call's output: tensors(event, Output, output), then, when its
  /// first tensor (the output, or the first element of a tuple/list) has a
  /// grad_fn, a native post hook on that node records grad_outputs[output_nr]
  /// as on_grad() does, taking the GIL: no Python runs for it, neither here
  /// nor in the backward. The hook returns the node's gradients unchanged.
  void module_output(uint64_t event, py::handle output);
  /// While set, the native grad hooks record nothing: an extra gradient pass
  /// a capture runs over the user's graph (Grad-CAM's, in on_backward).
  void set_grads_quiet(bool quiet) { grads_quiet_ = quiet; }
  /// own_enter() + suspend_profile(), and resume_profile() + own_exit(): the
  /// module hooks' brackets, one call each.
  void hook_enter();
  void hook_exit();
  /// Dead units of a ReLU output (session/dead_units.py): a 0-dim int64
  /// tensor on its device, the count of indices along `unit_dim` whose
  /// maximum over every other dimension is exactly 0; no autograd, no sync.
  static at::Tensor dead_units(const at::Tensor& output, int64_t unit_dim);
  /// A ReLU call's output in a training forward (session/dead_units.py):
  /// when it is a floating tensor of rank >= 2 with values, its dead-unit
  /// count (dead_units(), along dim 1, or the last dim of a rank-3 output) is
  /// kept for event `event` until resolve_dead_units(); at most
  /// kMaxPendingDeadUnits calls between two resolves. True when kept.
  bool note_dead_units(uint64_t event, const at::Tensor& output);
  /// Each kept call's event gets detail dead_units, units and unit_samples
  /// (in that order, as tvis.records.event_detail builds them); the counts are
  /// read to the host here, once per call kept (a step's end, the run's end).
  void resolve_dead_units();
  static constexpr size_t kMaxPendingDeadUnits = 4096;
  /// The leaf tensors the backward of `loss` accumulates into (its graph's
  /// AccumulateGrad nodes), each once, depth first from loss.grad_fn: a
  /// node's next edges are pushed in order and the last pushed is taken
  /// first (the order session/hand_written_steps.py's Python walk gave).
  /// Empty when `loss` has no grad_fn. Reads the graph, changes nothing.
  static std::vector<at::Tensor> graph_leaves(const at::Tensor& loss);
  /// The native grad hook's call (GIL held): on_grad's recording of `grad`.
  void on_node_grad(uint64_t event, const at::Tensor& grad);

  /// One record of the Body member named `table` ("LossRecord"), from its dict
  /// (tvis.records' constructors build them; conversion generated from the
  /// schema, py_records.h): written at the next flush as one chunk of the
  /// member's kind, its index entry's step range the record's `step` (one
  /// left out is the current step; a table without one: its vectors'
  /// records' steps, -1 when none), its event range the record's `event`
  /// (none without one; a SampleBatch: its batch_event). ValueError for an
  /// unknown table or key, TypeError for a value of the wrong type.
  /// add_loss, add_optimizer_step, add_samples and add_insights are this
  /// for LossRecord, OptimizerStepRecord, SampleBatch and InsightBatch.
  void add_record(const std::string& table, py::handle d);
  /// RunMeta from its dict (py_records.h meta_from).
  void write_meta(const py::dict& d);
  /// Stops tracing, then Recorder::finalize; returns stats().
  py::dict finalize(const py::dict& d);
  py::dict stats() const;

  /// Installs (stop: removes) the profile function that opens a
  /// FunctionCall event per project function call; one recorder at a time.
  void start_profile();
  void stop_profile();
  /// Around tvis's own module hooks (session.py): the profile function is
  /// off on the thread it was installed on, so the hooks' Python calls pay
  /// no profiling (in CPython 3.11 a profiled call materializes its frame
  /// object) and open no events; resume_profile() puts it back unless
  /// stop_profile() came in between. Other threads: no-ops.
  void suspend_profile();
  void resume_profile();
  void on_profile(PyFrameObject* frame, int what);

 private:
  void walk(py::handle obj, int role, uint64_t event, std::vector<int64_t>& ids, int& slot, int depth, bool whole_rows);
  /// The caller's file and line for a call event; (0, 0) when the caller is
  /// tvis's own code (the runner starting the script, an emulated worker).
  std::pair<uint32_t, uint32_t> call_site(PyFrameObject* frame);

  Recorder core_;
  CodeFilter filter_;
  PyThreadState* profiled_thread_ = nullptr;  // where start_profile() installed the function
  bool suspended_ = false;
  bool grads_quiet_ = false;
  struct PendingDeadUnits {
    uint64_t event;
    at::Tensor dead;  // 0-dim int64 on the output's device; undefined when counted on the host (count)
    int64_t count;
    int64_t units, unit_samples;
  };
  std::vector<PendingDeadUnits> dead_pending_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // false once destroyed (the hooks outlive it)
};

}  // namespace tvis::recorder
