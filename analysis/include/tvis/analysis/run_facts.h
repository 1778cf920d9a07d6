// run_facts.h: the records of a run that the checks read, as plain values.
//
// RunFacts is filled from decoded chunks, in any order, by add_chunk(); it
// keeps events, tensor records (shape and statistics: never values),
// optimizer steps, loss records, sample batches and the run's metadata.
// TensorData chunks are not wanted (wants() is false for them): a caller
// reading a file skips them, which is what keeps diagnose cheap.
//
// Invariants: every container is in recorded order; `tensor(id)` and
// `event(id)` answer nullptr for an id the run does not hold.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tvis/analysis/event_detail.h"
#include "tvis/format/run_reader.h"

namespace tvis::analysis {

/// Phases as the schema numbers them.
enum class Phase : int { None = 0, Data, Forward, Loss, Backward, Optimizer, Evaluation };
const char* phase_name(Phase p);

/// Event kinds as the schema numbers them (the ones the checks use).
enum class EventKind : int { ModuleCall = 0, FunctionCall, PhaseBegin, PhaseEnd, LossCall, OptimizerStep,
                             DataFetch, DatasetGetItem, Transform, BackwardCall, GraphOp, AllReduce };

/// Tensor roles as the schema numbers them.
enum class Role : int { Input = 0, Output, GradOutput, GradInput, Weight, Grad, Update, Batch, Target, Logits,
                        TransformInput, TransformOutput, Attention, GradCam, Embedding, EmbeddingTable, Other,
                        LocalGrad };

struct Stats {
  uint64_t count = 0, finite = 0, nan = 0, inf = 0;
  double min = 0, max = 0, mean = 0, std = 0, mean_abs = 0, l2 = 0;
  bool present = false;
  uint64_t non_finite() const { return nan + inf; }
};

struct EventFact {
  uint64_t id = 0;
  int64_t parent = -1;
  EventKind kind = EventKind::ModuleCall;
  int step = -1;
  Phase phase = Phase::None;
  std::string name, class_name;
  int64_t t_begin_ns = 0;
  std::vector<uint64_t> inputs, outputs, grad_outputs;
  double grad_norm = -1;  // ||dL/d(output)||, -1 not recorded
  EventDetail detail;  // the recorder's evidence, typed (event_detail.h): e.detail->dead_units()
};

struct TensorFact {
  uint64_t id = 0;
  int64_t event = -1;
  Role role = Role::Other;
  int slot = 0;
  std::string name;
  int step = -1;
  int sample = -1;  // -1: the whole tensor
  std::vector<int64_t> shape;
  int dtype = 0;  // schema DType: 1-4 floating point, 5-9 integer, 10 bool
  Stats stats;
  bool floating() const { return dtype >= 1 && dtype <= 4; }
  bool integral() const { return dtype >= 5 && dtype <= 9; }
};

struct ParamFact {
  std::string name;
  uint64_t weight = 0;
  int64_t grad = -1, update = -1, after = -1;
  int group = -1;  // index of its param group in StepFact::groups; -1 when no group names it
};

/// One param group's hyperparameters as the optimizer held them at the step
/// ("lr" -> "0.001", "betas" -> "(0.9, 0.999)", ...).
struct GroupFact {
  std::vector<std::pair<std::string, std::string>> hyper;
  /// The hyperparameter `key` as a number; NaN when absent or not a number.
  double number(const char* key) const;
};

struct StepFact {
  int step = 0;
  uint64_t event = 0;
  std::string optimizer_class;
  bool skipped = false;
  std::vector<double> lrs;  // per param group; NaN where the group has no lr
  std::vector<GroupFact> groups;
  std::vector<ParamFact> params;
  /// The lr of a parameter's group; NaN when unknown.
  double lr_of(const ParamFact& p) const;
};

/// A notice the recorder wrote into the run (code "recorder_error": recording
/// stopped after an internal error).
struct NoticeFact {
  std::string code, message;
};

/// What the run's final RunMeta says about the recording itself.
struct RunMetaFact {
  bool capture = false;  // RunKind ProfileCapture: a model captured by tvis graph / check, not a training
  int steps_requested = 0, steps_recorded = 0;
  bool complete = false;
  std::string exception;
  std::vector<NoticeFact> notices;
  int rank = 0, world_size = 1;  // options "rank" / "world_size" of a distributed rank
  std::vector<std::string> sharded;  // RunMeta.param_shards' names: parameters this rank holds a part of
  bool is_sharded(const std::string& param) const {
    for (const std::string& s : sharded)
      if (s == param) return true;
    return false;
  }
};

struct LossFact {
  int step = 0;
  uint64_t event = 0;
  std::string call, reduction, outer;
  double value = 0;
  double call_value = std::nan("");  // the loss call's own output, when `outer` scaled it; NaN unknown
  int64_t targets = -1, logits = -1;
  int64_t ignore_index = -100;
  std::vector<std::pair<std::string, std::string>> args;
};

struct BatchFact {
  int step = 0;
  uint64_t event = 0;
  std::vector<uint64_t> parts;  // tensor ids of the batch as yielded
};

class RunFacts {
 public:
  /// Whether a chunk of this kind holds anything the checks read.
  static bool wants(uint16_t chunk_kind);
  /// Takes what the checks read from one decoded chunk. A chunk whose
  /// copy size is over its budget (format/copy_budget.h: a crafted file's
  /// tables sharing one vector or string) is refused whole before anything
  /// is copied: nothing of it is kept, and the TooLarge status says which chunk.
  format::Status add_chunk(const format::DecodedChunk& chunk);
  /// Orders what add_chunk gathered (events by id, steps by step); call once after the last chunk.
  void finish();

  const std::vector<EventFact>& events() const { return events_; }
  const std::vector<TensorFact>& tensors() const { return tensors_; }
  const std::vector<StepFact>& steps() const { return steps_; }
  const std::vector<LossFact>& losses() const { return losses_; }
  const std::vector<BatchFact>& batches() const { return batches_; }
  const EventFact* event(int64_t id) const;
  const TensorFact* tensor(int64_t id) const;
  int steps_recorded() const { return meta_.steps_recorded; }
  const std::string& exception() const { return meta_.exception; }
  const RunMetaFact& meta() const { return meta_; }
  /// The first notice with `code`, or nullptr.
  const NoticeFact* notice(const char* code) const;

 private:
  std::vector<EventFact> events_;
  std::vector<TensorFact> tensors_;
  std::vector<StepFact> steps_;
  std::vector<LossFact> losses_;
  std::vector<BatchFact> batches_;
  std::unordered_map<uint64_t, size_t> event_at_, tensor_at_;
  RunMetaFact meta_;
};

/// What load_facts read, for the report (diagnose reads no tensor values).
struct LoadCost {
  uint64_t chunks_read = 0, bytes_read = 0;        // stored (compressed) bytes, headers included
  uint64_t chunks_skipped = 0, bytes_skipped = 0;  // tensor values and insights, never read
};

/// Reads every chunk RunFacts wants from a reader over a synchronous source
/// (a file, memory) into `facts`, then finish()es it. A chunk that fails to
/// read or verify, or that RunFacts refuses (add_chunk), fails the load with
/// its message.
format::Status load_facts(format::RunReader& reader, RunFacts& facts, LoadCost* cost);

}  // namespace tvis::analysis
