// fuzz_worker_lines: the capture worker's protocol lines (profiles/src/worker_lines.cpp) and the
// shape diagnostics computed from the operands they carry (shape_diagnostics.cpp). The worker runs
// the model's own code, so its lines are outside input (issue 29 item 12): every field is
// type-checked and nothing may throw or overflow. Each input is split into lines; the last
// `result` line is interpreted as run_capture() does. Crafted lines: tests/fuzz/corpus_worker/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tvis/json/safe.h"
#include "worker_lines.h"

using namespace tvis::profiles;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Capture c;
  detail::WorkerLineReader reader{c};
  const std::string all(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  while (start <= all.size()) {
    size_t nl = all.find('\n', start);
    if (nl == std::string::npos) nl = all.size();
    reader(all.substr(start, nl - start));
    start = nl + 1;
  }
  if (reader.result.is_object()) detail::read_worker_result(c, reader.result);
  for (const auto& d : c.diagnostics) (void)tvis::safe_json::text(d.parameters);
  return 0;
}
