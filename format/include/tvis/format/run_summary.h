// run_summary.h: what a run holds, in the terms of `tvis inspect`
// (keys in docs/inspect_json.md). Part of the read half: no exceptions, threads or files.
//
// Usage, synchronous sources:
//     auto reader = RunReader::open_sync(source);        // check ok()
//     Result<RunSummary> s = summarize_run(*reader.value());
// Asynchronous sources feed every decoded chunk, in ordinal order, to a
// RunSummaryBuilder and call finish().
//
// summarize_run() reads and verifies every chunk, so a corrupt chunk anywhere
// fails it with that chunk's Status. Tensor values (TensorData chunks) are
// verified without being kept (RunReader::verify_chunk: one zstd window, not
// the chunk's decoded size), so the summary's memory does not grow with them.
//
// What the summary costs is bounded by the file's bytes, not by what its
// records reference: a FlatBuffer string or vector may be referenced by any
// number of tables, so names are looked up once per string per chunk (and
// kept up to kSummaryFieldBytes each), and
// RunMeta's strings are copied up to kSummaryFieldBytes each and its argv and
// notices up to kSummaryListItems entries and kSummaryListBytes in all
// (a cut list ends with one "... (N ... in all)" entry).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tvis/format/error.h"
#include "tvis/format/run_reader.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::format {

inline constexpr size_t kSummaryFieldBytes = 4096;       // a name; script, device, versions, host, one notice
inline constexpr size_t kSummaryListItems = 1024;        // argv entries, notices
inline constexpr size_t kSummaryListBytes = 64 * 1024;   // argv, notices, the exception text

struct AttentionSummary {
  std::string module;
  std::vector<int64_t> shape;
  bool rebuilt = false;  // rebuilt from a fused kernel's q and k (else a softmax's own result)
  std::string kind;      // the call that computed it ("": the project's softmax)
};

struct LibraryAttentionSummary {
  std::string module;
  std::string kind;
};

struct CapturedSummary {
  uint64_t tensors = 0;                       // TensorRecords
  std::vector<int32_t> samples;               // followed sample ids, ascending
  std::vector<std::string> transforms;        // pipeline transform class names, first-seen order
  std::vector<std::string> gradcam;           // modules with Grad-CAM maps, first-seen order
  std::vector<AttentionSummary> attention;    // one per module: first record's shape
  std::vector<std::string> embeddings;        // modules with per-sample vectors
  std::vector<LibraryAttentionSummary> library_attention;
};

/// Per chunk kind: how many chunks and their bytes.
struct ChunkKindTotals {
  uint64_t chunks = 0;
  uint64_t raw_bytes = 0;
  uint64_t stored_bytes = 0;  // headers + compressed payloads
};

struct RunSummary {
  // --- the `tvis inspect --json` object -----------------------------------
  std::string format_version;     // "major.minor" of the file header
  bool complete = false;          // trailer and footer intact
  int64_t steps = 0;              // optimizer steps recorded
  uint64_t events = 0;
  std::vector<std::string> modules;    // module paths, first-call order
  std::vector<std::string> functions;  // project functions, first-call order
  std::vector<double> losses;          // per step (ascending): the first LossRecord's value
  std::vector<std::vector<double>> step_losses;  // per step (ascending): every LossRecord's value, in order
  std::vector<double> all_reduce_ms;   // per step from 0: DDP's AllReduce time (ms); empty without DDP
  std::vector<uint32_t> device_reads;  // per step from 0: the recorder's device->host reads; empty when not recorded
  std::vector<std::string> notices;    // recovery notice first, then the run's notices
  bool has_exception = false;
  std::string exception;
  CapturedSummary captured;
  /// The run's configuration, from its last RunMeta (run_config_of.h: a run
  /// from before RunConfig reads its options strings); has_config false
  /// when the run has no RunMeta.
  schema::RunConfigT config;
  bool has_config = false;

  // --- for the human-readable report --------------------------------------
  std::string script;
  std::vector<std::string> argv;
  std::string device, python_version, torch_version, hostname;
  int64_t started_unix_ms = 0;
  int64_t finished_unix_ms = 0;
  int32_t exit_code = 0;
  uint64_t file_bytes = 0;
  std::map<std::string, ChunkKindTotals> chunks_by_kind;  // by chunk_kind_name()
  uint64_t profile_captures = 0;
};

/// Accumulates a summary from decoded chunks fed in ordinal order.
class RunSummaryBuilder {
 public:
  explicit RunSummaryBuilder(const RunReader& reader);
  /// Adds one chunk's content. Chunks of kinds this reader does not know are
  /// counted and otherwise ignored.
  void add(const DecodedChunk& chunk);
  /// Counts a chunk whose body the summary does not read (verified by the
  /// caller, e.g. with RunReader::verify_chunk): its kind's totals only.
  void add_verified(const ChunkEntry& entry);
  /// The summary of everything added.
  RunSummary finish();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

/// Reads every chunk of `reader` (synchronous sources) and summarizes them.
/// Fails with the first chunk's error.
Result<RunSummary> summarize_run(RunReader& reader);

/// A double as Python's repr() prints it: the shortest digits that read back
/// to the same value, "2.302585092994046", "1e-05", "100.0", "nan", "inf".
std::string python_float_repr(double value);

}  // namespace tvis::format
