// run_file.cpp: `_tvis_native.RunFile`, a read-only view of a run for tests
// and tools written in Python. Torch-free (pybind11 only).
//
//   RunFile(path)            opens with the format reader (recovers a run
//                            without footer); raises ValueError naming the problem.
//   .complete, .notice       the container's view (trailer intact / what a scan recovered)
//   .chunks()                [(ordinal, kind name, step_first, step_last, compressed_size, raw_size, filter,
//                              encoding)]
//                            filter: the byte-shuffle element size (0 = none); encoding: the
//                            container's ChunkEncoding (0 plain, 1 an XOR delta against an earlier chunk)
//   .chunk_json(ordinal)     the chunk's FlatBuffer as JSON text (not for tensor_data); floats and
//                            doubles in full (shortest round-trip digits: float(text) is the stored value)
//   .data(ordinal, off, n)   n bytes at `off` of a TensorData chunk's `bytes`
#include <flatbuffers/minireflect.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <charconv>
#include <map>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include <tvis/schema/recording_generated.h>

namespace py = pybind11;
using namespace tvis;

namespace {

// FlatBuffers' text visitor with every float and double written in full
// (Python reads each back as the double equal to the stored value):
// its own prints 12 significant digits (6 for floats), so a recorded value
// read back through the JSON would differ from the stored one.
struct ExactJson : flatbuffers::ToStringVisitor {
  ExactJson() : flatbuffers::ToStringVisitor(" ", true, "", true) {}
  void Float(float x) override { s += shortest(static_cast<double>(x)); }  // the float's exact value as a double
  void Double(double x) override { s += shortest(x); }

  template <typename T>
  static std::string shortest(T x) {
    char buf[48];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);  // the shortest text that reads back as x
    return std::string(buf, r.ptr);
  }
};

class RunFile {
 public:
  explicit RunFile(const std::string& path) {
    auto src = format::open_file_source(path);
    if (!src.ok()) throw py::value_error(src.status().message);
    auto r = format::RunReader::open_sync(src.value());
    if (!r.ok()) throw py::value_error(r.status().message);
    reader_ = r.value();
  }
  bool complete() const { return reader_->complete(); }
  std::string notice() const { return reader_->recovery_notice(); }

  py::list chunks() const {
    py::list out;
    for (const auto& c : reader_->chunks())
      out.append(py::make_tuple(c.ordinal, format::chunk_kind_name(c.info.kind), c.info.step_first, c.info.step_last,
                                c.compressed_size, c.raw_size, static_cast<int>(c.info.filter),
                                static_cast<int>(c.info.encoding)));
    return out;
  }

  std::string chunk_json(uint32_t ordinal) {
    auto c = get(ordinal);
    ExactJson v;
    flatbuffers::IterateFlatBuffer(c->bytes().data(), schema::ChunkTypeTable(), &v);
    return v.s;
  }

  py::bytes data(uint32_t ordinal, uint64_t offset, uint64_t size) {
    auto c = get(ordinal);
    const auto* root = c->root();
    const auto* td = root ? root->body_as_TensorData() : nullptr;
    if (!td || !td->bytes()) throw py::value_error("chunk " + std::to_string(ordinal) + " is not tensor data");
    if (offset > td->bytes()->size() || size > td->bytes()->size() - offset)
      throw py::value_error("range outside chunk " + std::to_string(ordinal));
    return py::bytes(reinterpret_cast<const char*>(td->bytes()->data() + offset), size);
  }

 private:
  std::shared_ptr<const format::DecodedChunk> get(uint32_t ordinal) {
    auto it = cache_.find(ordinal);
    if (it != cache_.end()) return it->second;
    auto r = reader_->read_chunk_sync(ordinal);
    if (!r.ok()) throw py::value_error(r.status().message);
    if (cache_.size() > 64) cache_.clear();
    cache_[ordinal] = r.value();
    return r.value();
  }
  std::shared_ptr<format::RunReader> reader_;
  std::map<uint32_t, std::shared_ptr<const format::DecodedChunk>> cache_;
};

}  // namespace

void register_run_file(py::module_& m) {
  py::class_<RunFile>(m, "RunFile")
      .def(py::init<const std::string&>())
      .def_property_readonly("complete", &RunFile::complete)
      .def_property_readonly("notice", &RunFile::notice)
      .def("chunks", &RunFile::chunks)
      .def("chunk_json", &RunFile::chunk_json)
      .def("data", &RunFile::data);
}
