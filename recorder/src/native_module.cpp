// native_module.cpp: `_tvis_native`, the private pybind11 module behind the
// `tvis` package: bindings only. One Recorder per process records one run
// (recorder.h; its Python face is py_recorder.h); RunFile reads runs back
// (run_file.cpp).
//
// Threading: every entry point runs with the GIL held (hooks, the profile
// function, autograd node hooks called from Python), which serializes access.
// Nothing here changes a tensor, an RNG or a torch flag of the user's program.
#include <torch/csrc/utils/pybind.h>

#include <pybind11/stl.h>

#include <optional>

#include "py_recorder.h"
#include "py_records.h"
#include "tensor_capture.h"

namespace py = pybind11;
using tvis::recorder::PyRecorder;

void register_run_file(py::module_& m);  // run_file.cpp
void register_schema(py::module_& m);    // py_schema.cpp

PYBIND11_MODULE(_tvis_native, m) {
  register_run_file(m);
  register_schema(m);
  m.doc() = "tvis recorder core (private; use the tvis package)";
  m.attr("torch_version") = TVIS_TORCH_VERSION;
  py::class_<PyRecorder>(m, "Recorder")
      .def(py::init<const std::string&, const py::dict&, std::vector<std::string>, int, int64_t, py::object, bool,
                    uint64_t>(),
           py::arg("path"), py::arg("config"), py::kw_only(), py::arg("exclude_dirs") = std::vector<std::string>{},
           py::arg("zstd_level") = 1, py::arg("data_chunk_bytes") = 8 << 20, py::arg("dense_zstd_level") = py::none(),
           py::arg("update_values") = false, py::arg("spill_snapshot_bytes") = uint64_t(256) << 20)
      .def("now", [](PyRecorder& r) { return r.core().now(); })
      // own_enter() / own_exit(): tvis's own work on this thread (own_time.h); they nest
      .def("own_enter", [](PyRecorder& r) { r.core().own_enter(); })
      .def("own_exit", [](PyRecorder& r) { r.core().own_exit(); })
      .def("own_total", [](PyRecorder& r) { return r.core().own_total(); })
      .def("file_id", [](PyRecorder& r, const std::string& path) { return r.core().file_id(path); })
      .def("begin", [](PyRecorder& r, int kind, const std::string& name, const std::string& cls, uint32_t cf,
                       uint32_t cl, uint32_t df, uint32_t dl) { return r.core().begin(kind, name, cls, cf, cl, df, dl); })
      .def("end", [](PyRecorder& r, uint64_t id) { r.core().end(id); })
      .def("instant", [](PyRecorder& r, int kind, const std::string& name) { return r.core().instant(kind, name); })
      .def("add_detail", &PyRecorder::add_detail)
      .def("set_step", [](PyRecorder& r, int step) { r.core().set_step(step); })
      .def("step", [](PyRecorder& r) { return r.core().step(); })
      .def("set_phase", [](PyRecorder& r, int phase) { r.core().set_phase(phase); })
      .def("phase", [](PyRecorder& r) { return r.core().phase(); })
      .def("set_batch_rows", [](PyRecorder& r, int64_t rows) { r.core().set_batch_rows(rows); })
      .def("set_followed_rows", [](PyRecorder& r, int64_t rows) { r.core().set_followed_rows(rows); })
      .def("set_parameter_bytes", [](PyRecorder& r, uint64_t bytes) { r.core().set_parameter_bytes(bytes); })
      .def("tensor",
           [](PyRecorder& r, py::handle t, int role, int64_t event, const std::string& name, int slot) {
             return r.tensor(t, role, event, name, slot);
           },
           py::arg("t"), py::arg("role"), py::arg("event"), py::arg("name") = "", py::arg("slot") = 0)
      .def("tensors", &PyRecorder::tensors, py::arg("event"), py::arg("role"), py::arg("value"),
           py::arg("whole_rows") = false)
      .def("on_grad", &PyRecorder::on_grad)
      .def("module_output", &PyRecorder::module_output)
      .def("set_grads_quiet", &PyRecorder::set_grads_quiet)
      .def("hook_enter", &PyRecorder::hook_enter)
      .def("dead_units", [](PyRecorder&, const at::Tensor& output, int64_t unit_dim) {
        return PyRecorder::dead_units(output, unit_dim);
      })
      // Each tensor's L2 norm when it is a small float32 host tensor (tensor_capture.h
      // small_f32_l2_norm), else None: the carried-gradients probe's norms without an operator each.
      .def("small_l2_norms",
           [](PyRecorder&, const std::vector<at::Tensor>& ts) {
             std::vector<std::optional<double>> out;
             out.reserve(ts.size());
             for (const auto& t : ts) out.push_back(tvis::recorder::small_f32_l2_norm(t));
             return out;
           })
      .def("note_dead_units", &PyRecorder::note_dead_units)
      .def("resolve_dead_units", &PyRecorder::resolve_dead_units)
      .def_static("graph_leaves", &PyRecorder::graph_leaves)
      .def("hook_exit", &PyRecorder::hook_exit)
      .def("update", [](PyRecorder& r, int64_t event, const std::string& name, const at::Tensor& after,
                        const at::Tensor& before) { return r.core().update(event, name, after, before); })
      .def(
          "params_before",
          [](PyRecorder& r, int64_t event, const std::vector<std::string>& names, const std::vector<at::Tensor>& params,
             const std::optional<std::vector<std::optional<at::Tensor>>>& grads) {
            if (!grads) return r.core().params_before(event, names, params);
            std::vector<at::Tensor> given;  // None: no gradient (an undefined tensor)
            for (const auto& g : *grads) given.push_back(g ? *g : at::Tensor());
            return r.core().params_before(event, names, params, &given);
          },
          py::arg("event"), py::arg("names"), py::arg("params"), py::arg("grads") = py::none())
      .def("params_after", [](PyRecorder& r, int64_t event, const std::vector<at::Tensor>& params) {
        return r.core().params_after(event, params);
      })
      .def("params_unchanged", [](PyRecorder& r) { r.core().params_unchanged(); })
      .def("add_record", &PyRecorder::add_record, py::arg("table"), py::arg("record"))
      .def("add_optimizer_step", [](PyRecorder& r, py::handle d) { r.add_record("OptimizerStepRecord", d); })
      .def("add_loss", [](PyRecorder& r, py::handle d) { r.add_record("LossRecord", d); })
      .def("add_samples", [](PyRecorder& r, py::handle d) { r.add_record("SampleBatch", d); })
      .def("add_insights", [](PyRecorder& r, py::handle d) { r.add_record("InsightBatch", d); })
      .def_static("records", &tvis::recorder::addable_records)
      .def("write_meta", &PyRecorder::write_meta)
      .def("flush", [](PyRecorder& r) { r.core().flush(); })
      .def("relabel_as_evaluation",
           [](PyRecorder& r, const std::vector<uint64_t>& roots) { return r.core().relabel_as_evaluation(roots); })
      .def("drop_sample_batches",
           [](PyRecorder& r, const std::vector<uint64_t>& events) { r.core().drop_sample_batches(events); })
      .def("finalize", &PyRecorder::finalize)
      .def("stats", &PyRecorder::stats)
      .def("start_profile", &PyRecorder::start_profile)
      .def("stop_profile", &PyRecorder::stop_profile)
      .def("suspend_profile", &PyRecorder::suspend_profile)
      .def("resume_profile", &PyRecorder::resume_profile)
      .def("set_paused", [](PyRecorder& r, bool p) { r.core().set_paused(p); })
      .def("paused", [](PyRecorder& r) { return r.core().paused(); });
}
