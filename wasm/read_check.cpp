// tvis-read-check: the format's read half compiled to wasm, run under node
// (`node --no-experimental-fetch tvis-read-check.js RUN`). Reads RUN through a
// memory source, verifies and decodes every chunk, and prints the fields of
// `tvis inspect --json` that a test compares with the native build's output.
// Exit 0 on a readable run, 2 with one line on stderr otherwise.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "tvis/format/byte_source.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_summary.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tvis-read-check RUN\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "tvis-read-check: cannot open %s\n", argv[1]);
    return 2;
  }
  tvis::format::Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto reader = tvis::format::RunReader::open_sync(tvis::format::make_memory_source(std::move(bytes), argv[1]));
  if (!reader.ok()) {
    std::fprintf(stderr, "tvis-read-check: %s\n", reader.status().message.c_str());
    return 2;
  }
  auto summary = tvis::format::summarize_run(*reader.value());
  if (!summary.ok()) {
    std::fprintf(stderr, "tvis-read-check: %s\n", summary.status().message.c_str());
    return 2;
  }
  const tvis::format::RunSummary& s = summary.value();
  nlohmann::json j = {{"format_version", s.format_version}, {"complete", s.complete}, {"steps", s.steps},
                      {"events", s.events},   {"modules", s.modules},   {"functions", s.functions},
                      {"losses", s.losses},   {"tensors", s.captured.tensors},
                      {"chunks", reader.value()->chunks().size()}};
  std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return 0;
}
