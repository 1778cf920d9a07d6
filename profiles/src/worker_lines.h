// worker_lines.h (private): the worker's protocol lines (python/worker.py's
// header lists them) read into a Capture. The lines come from a process that
// runs the model's own code, so every line is outside input: parsed with a
// nesting bound (tvis/json/safe.h), and every field type-checked: a field of
// the wrong type (or out of range) reads as absent, a line that is not a JSON
// object is counted in bad_lines. Nothing here throws on any byte string
// (tests/fuzz/fuzz_worker_lines.cpp).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "tvis/profiles/capture.h"

namespace tvis::profiles::detail {

struct WorkerLineReader {
  Capture& c;
  nlohmann::json result = nullptr;  // the `result` line's object, when one came
  std::string last_stage;
  int64_t bad_lines = 0;

  /// One line (no newline); true for `ready` (the forward clock starts).
  bool operator()(const std::string& line);
};

/// Fills c.ok, stage, outputs and diagnostics from a `result` object.
void read_worker_result(Capture& c, const nlohmann::json& result);

}  // namespace tvis::profiles::detail
