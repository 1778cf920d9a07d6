// byte_budget.h: how many bytes of tensor values a run may keep
// (`tvis run --max-run-bytes`) and which tensors get them.
//
// Policy (grant() in recording order; torch-free, the Recorder asks):
//   - Statistics and histograms of every tensor are always written; they are
//     not counted (a few hundred bytes a record).
//   - Essential values are always kept and counted: batches, targets and
//     logits (the loss's analysis), insights, pipeline values.
//   - Parameters (weights at step boundaries, gradients) are kept while the
//     step's share lasts.
//   - Followed rows (the followed samples' rows of a batch-sized tensor whose
//     whole was refused) and Activations (module inputs, outputs,
//     dL/d(output)) are kept within the step's share minus the room reserved
//     for the step's parameters. Parameters come at the step's end, after
//     the activations; the reserve is what keeps them from being crowded
//     out. It is two copies of the parameters (three in step 0: the weights
//     before it too), at most half the share, so that for a model whose
//     parameters outweigh the share the followed rows still get half.
//   The step's share is (budget − bytes used) / (steps still to record), set
//   when the step begins; bytes a step leaves unused go to the later ones.
//   A refused tensor keeps statistics, a thumbnail and, when batch-sized and
//   granted, the followed samples' rows.
// A total of 0 means no budget: every grant succeeds.
#pragma once

#include <cstdint>

namespace tvis::recorder {

class ByteBudget {
 public:
  enum class Priority { Essential, Parameters, FollowedRows, Activations };

  ByteBudget(uint64_t total, int steps) : total_(total), steps_(steps > 0 ? steps : 1) { begin_step(0); }

  /// Step `step` (0-based) begins: its share is fixed now.
  void begin_step(int step);
  /// Bytes of one copy of every parameter (weights; gradients are as many):
  /// the room reserved for a step's parameters (see Policy).
  void set_parameter_bytes(uint64_t bytes) { parameter_bytes_ = bytes; }
  /// True when `bytes` of values of priority `p` may be kept; they are then
  /// counted. Essential bytes are always granted.
  bool grant(Priority p, uint64_t bytes);

  /// The room kept back for parameters in the current step.
  uint64_t parameter_reserve() const;

  bool limited() const { return total_ > 0; }
  uint64_t total() const { return total_; }
  uint64_t used() const { return used_; }
  uint64_t refused() const { return refused_; }              // tensors refused
  uint64_t refused_bytes() const { return refused_bytes_; }  // values they would have kept

 private:
  uint64_t total_;
  int steps_;
  int step_ = 0;
  uint64_t parameter_bytes_ = 0;
  uint64_t used_ = 0;
  uint64_t step_share_ = 0;
  uint64_t step_used_ = 0;
  uint64_t refused_ = 0, refused_bytes_ = 0;
};

}  // namespace tvis::recorder
