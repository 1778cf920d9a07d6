// tvis-synth: writes a synthetic run file through the format writer (for
// demos, tests, benchmarks and the fuzzer's seed corpus).
//   tvis-synth --out run.tvis [--steps N] [--calls N] [--target-bytes 1e9]
//              [--seed S] [--zstd-level L] [--no-finalize] [--version-minor M] [--tiny]
#include <CLI/CLI.hpp>

#include <cstdio>

#include "synthetic_run.h"
#include "tvis/format/container_codec.h"

int main(int argc, char** argv) {
  CLI::App app{"tvis-synth: write a synthetic tvis run file"};
  std::string out;
  tvis::synth::SynthOptions o;
  bool no_finalize = false;
  app.add_option("--out", out, "run file to write")->required();
  app.add_option("--steps", o.steps, "optimizer steps")->check(CLI::Range(0, 1000000));
  app.add_option("--calls", o.calls, "module calls over the whole run (default 12 per step)");
  app.add_option("--target-bytes", o.target_bytes, "raw tensor value bytes to aim for (e.g. 1e9)");
  app.add_option("--seed", o.seed, "random seed");
  app.add_option("--zstd-level", o.zstd_level, "zstd level")->check(CLI::Range(-5, 19));
  app.add_option("--version-minor", o.version_minor, "container minor version to write");
  app.add_flag("--tiny", o.tiny, "2x2 tensors: a few kB per step (tests, fuzz seeds)");
  app.add_flag("--no-finalize", no_finalize, "leave the file as a killed writer would (no footer)");
  CLI11_PARSE(app, argc, argv);
  o.finalize = !no_finalize;
  auto r = tvis::synth::write_synthetic_run(out, o);
  if (!r.ok()) {
    std::fprintf(stderr, "tvis-synth: %s\n", r.status().message.c_str());
    return 1;
  }
  const auto& rep = r.value();
  std::printf("%s: %d steps, %llu events, %llu tensors, %llu chunks, %s raw, %s on disk\n", out.c_str(), o.steps,
              (unsigned long long)rep.events, (unsigned long long)rep.tensors, (unsigned long long)rep.chunks,
              tvis::format::format_bytes(rep.raw_bytes).c_str(), tvis::format::format_bytes(rep.file_bytes).c_str());
  return 0;
}
