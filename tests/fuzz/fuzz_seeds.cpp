// fuzz_seeds DIR [RUN...]: writes the fuzzer's seed corpus: small synthetic
// runs (complete, never finalized, minor 7, truncated), copies of the given
// real runs (the golden files), and for each chunk of those runs a
// chunk-body seed (kind byte + decoded payload) for fuzz_reader's second mode.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "synthetic_run.h"
#include "tvis/format/byte_source.h"
#include "tvis/format/run_reader.h"

namespace fmt = tvis::format;

static void write_file(const std::string& path, const fmt::Bytes& b) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR [RUN...]\n");
    return 2;
  }
  const std::string dir = argv[1];
  struct Seed {
    const char* name;
    int steps;
    bool finalize;
    uint16_t minor;
  } seeds[] = {{"run_1step", 1, true, 0}, {"run_2steps", 2, true, 0}, {"run_killed", 2, false, 0},
               {"run_minor7", 1, true, 7}};
  for (const Seed& s : seeds) {
    tvis::synth::SynthOptions o;
    o.steps = s.steps;
    o.calls = 3 * uint64_t(s.steps);
    o.tiny = true;
    o.finalize = s.finalize;
    o.version_minor = s.minor;
    o.seed = uint64_t(s.steps) * 7 + s.minor;
    const std::string path = dir + "/" + s.name + ".tvis";
    auto r = tvis::synth::write_synthetic_run(path, o);
    if (!r.ok()) {
      std::fprintf(stderr, "fuzz_seeds: %s\n", r.status().message.c_str());
      return 1;
    }
  }
  // Truncated copy of the 2-step run; chunk bodies of it and of the given runs.
  auto load = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return fmt::Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const fmt::Bytes run = load(dir + "/run_2steps.tvis");
  write_file(dir + "/run_truncated.tvis", fmt::Bytes(run.begin(), run.begin() + long(run.size() * 2 / 3)));
  std::vector<std::string> runs = {dir + "/run_2steps.tvis"};
  for (int i = 2; i < argc; ++i) runs.push_back(argv[i]);
  size_t bodies = 0;
  for (size_t k = 0; k < runs.size(); ++k) {
    const fmt::Bytes bytes = load(runs[k]);
    if (k > 0) write_file(dir + "/given_" + std::to_string(k) + ".tvis", bytes);
    auto reader = fmt::RunReader::open_sync(fmt::make_memory_source(bytes, runs[k]));
    if (!reader.ok()) {
      std::fprintf(stderr, "fuzz_seeds: %s: %s\n", runs[k].c_str(), reader.status().message.c_str());
      return 1;
    }
    for (uint32_t i = 0; i < reader.value()->chunks().size(); ++i) {
      auto c = reader.value()->read_chunk_sync(i);
      if (!c.ok()) return 1;
      fmt::Bytes body{uint8_t(c.value()->entry().info.kind)};
      body.insert(body.end(), c.value()->bytes().begin(), c.value()->bytes().end());
      write_file(dir + "/chunk_" + std::to_string(k) + "_" + std::to_string(i) + ".bin", body);
      ++bodies;
    }
  }
  std::printf("fuzz_seeds: wrote 5 synthetic runs, %zu given runs and %zu chunk bodies to %s\n", runs.size() - 1,
              bodies, dir.c_str());
  return 0;
}
