// synthetic_run.h: writes a synthetic but realistic training run through the
// format writer: N steps of phase markers, module and function calls, tensor
// records with exact statistics over their values (ReLU'd gaussians, smooth
// images), followed samples with a transform chain, loss records, optimizer
// steps and insights (Grad-CAM, attention, embeddings). Deterministic for a
// given seed. Used by tvis-synth, tools/demo, the format tests, the benchmark
// and the fuzzer's seed corpus, until real recordings replace it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tvis/format/error.h"

namespace tvis::synth {

struct SynthOptions {
  int steps = 3;
  uint64_t calls = 0;          // module calls over the whole run; 0 = 12 per step
  double target_bytes = 0;     // raw tensor value bytes to aim for; 0 = small (~64 kB per step)
  uint64_t seed = 1;
  int zstd_level = 1;
  bool finalize = true;        // false: leave the file as a killed writer would
  uint16_t version_minor = 0;  // container minor version written in the header
  bool tiny = false;           // 2x2 tensors everywhere: a few kB per step (tests, fuzz seeds)
  /// EmbeddingRecords also carry every row of an 8-row batch ([8, 16] vectors,
  /// rows 0..7 labelled by (row + step) % 3, the 4 followed samples at rows
  /// 1, 3, 5, 7), as the recorder writes them since issue 34.
  bool batch_embeddings = false;
  /// More RunMeta options (key, value), after the usual ones: a rank of a
  /// distributed run says rank and world_size (tests of the viewer's ranks).
  std::vector<std::pair<std::string, std::string>> meta_options;
};

struct SynthReport {
  uint64_t chunks = 0;
  uint64_t events = 0;
  uint64_t tensors = 0;
  uint64_t raw_bytes = 0;   // all chunks before compression
  uint64_t file_bytes = 0;
  std::vector<double> losses;  // per step, as written
};

tvis::format::Result<SynthReport> write_synthetic_run(const std::string& path, const SynthOptions& options);

/// Deterministic activation-like float32 values: a ReLU'd gaussian with a
/// per-row scale (kind 0) or a smooth image-like field plus noise (kind 1).
void fill_activations(float* out, uint64_t count, uint64_t seed, int kind);

}  // namespace tvis::synth
