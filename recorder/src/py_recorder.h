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
  PyRecorder(const std::string& path, int64_t max_elems, int samples, const std::string& project_dir,
             std::vector<std::string> exclude_dirs, int zstd_level, int64_t data_chunk_bytes,
             py::object dense_zstd_level, bool evaluation_values, bool update_values, uint64_t max_run_bytes,
             int budget_steps, uint64_t spill_snapshot_bytes);
  ~PyRecorder() { stop_profile(); }

  Recorder& core() { return core_; }

  void add_detail(uint64_t id, py::handle kvs);
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

  /// Record dicts; shapes in py_records.h and py_recorder.cpp.
  void add_optimizer_step(const py::dict& d);
  void add_loss(const py::dict& d);
  void add_samples(const py::dict& d);
  void add_insights(const py::dict& d);
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
};

}  // namespace tvis::recorder
