// loss_analysis.h: what a classification loss did to each sample of its
// batch, recomputed from the recorded logits and targets (the recorder
// analyses only the followed samples), and the confusion matrix over every
// recorded batch.
//
// Per row r of logits x ([N, V], V classes) and target t, in double from the
// recorded values (cross_entropy; nll_loss takes x as log-probabilities):
//   m = max_j x_j; s = sum_j exp(x_j - m), left to right;
//   neg_log_p = -((x_t - m) - log(s)); p_target = exp(-neg_log_p);
//   predicted = the first j with x_j = m;
//   loss = neg_log_p, or with label smoothing e:
//          (1 - e) * neg_log_p + e / V * sum_j -log p_j.
// With class weights the per-row loss is known only for the rows the
// recorder analysed itself (its SampleLoss values); others have loss NaN.
// Rows whose target is ignore_index are not samples (they are padding).
//
// Contracts:
//   - Non-blocking: batch() and confusion() return what is known; a state of
//     Loading means a Tensors or TensorData chunk is still being read (asked
//     for), and the caller asks again next frame.
//   - Reads only the chunks holding the loss's logits and targets records and
//     their values (confusion(): those of every recorded loss).
//   - Unavailable comes with `why`, one sentence a user reads ("a custom loss
//     function: no per-sample analysis", "logits of 3.1M values exceed
//     --max-elems: only statistics were kept").
//   - Results are kept for the run's life (reset() on reopen).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tvis/viewer_model/loss_entry.h"
#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

class RunModel;

enum class AnalysisState { Loading, Ready, Unavailable };

struct SampleLossRow {
  int64_t row = 0;  // row of the logits (b * T + t for a language model)
  int64_t target = 0;
  int64_t predicted = 0;
  double p_target = 0;
  double neg_log_p = 0;
  double loss = 0;       // NaN when unknown (class weights, row not followed)
  bool followed = false;  // the recorder analysed this row itself
  int sample = -1;       // the followed sample's id, else -1
};

/// A language model's token layout (logits reshaped from [B, T, V]).
struct TokenLosses {
  int64_t batch = 0, tokens = 0, vocab = 0;
  int64_t ignore_index = -100;
  std::vector<double> losses;  // [B * T] as recorded (float32); NaN where ignored or unknown
  std::vector<bool> ignored;   // [B * T]
  bool recorded = false;       // the per-token tensor's values were kept
};

struct LossBatch {
  AnalysisState state = AnalysisState::Loading;
  std::string why;                  // for Unavailable; a note for Ready (e.g. "leading rows only")
  int step = -1;
  uint64_t event = 0;
  std::string function;             // "cross_entropy" or "nll_loss"
  int64_t classes = 0;              // V
  int64_t rows_total = 0;           // N of the logits (rows analysed may be fewer: leading rows kept)
  std::vector<SampleLossRow> rows;  // in row order, ignored rows left out
  std::vector<size_t> worst;        // indices into rows: loss (else neg_log_p) largest first, ties by row
  TensorValues logits;              // the kept logits (for top predictions on hover)
  bool has_tokens = false;
  TokenLosses tokens;
  int64_t ignore_index = -100;
  bool weighted = false;            // class weights: per-row losses unknown but for followed rows
  double label_smoothing = 0;
};

struct Confusion {
  AnalysisState state = AnalysisState::Loading;
  std::string why;
  int classes = 0;
  std::vector<int64_t> counts;  // [t * classes + p]
  int batches = 0;              // loss records counted
  int batches_skipped = 0;      // records of the run not analysable (other losses, other class counts)
  int64_t samples = 0;
};

/// `c` row-normalised: [t * classes + p] = counts[t][p] / Σ_p' counts[t][p'],
/// the sum taken left to right as int64 and the division in double; a row
/// without samples is all 0.
std::vector<double> row_normalised(const Confusion& c);

class LossAnalysis {
 public:
  explicit LossAnalysis(RunModel& model) : model_(model) {}
  void reset();
  /// The analysis of `rec` (a record of model.losses()).
  const LossBatch& batch(const schema::LossRecord& rec);
  /// The same for the record entry `e` was copied from (model.losses());
  /// Unavailable, with a why, when `e` is not of this run.
  const LossBatch& batch(const LossEntry& e);
  /// Counts over every recorded classification loss of the run (the first
  /// analysable record sets the class count; confusion is null-like
  /// (Unavailable) for language models and for more than kMaxClasses classes).
  const Confusion& confusion();

  static constexpr int kMaxClasses = 256;

 private:
  void analyse(const schema::LossRecord& rec, LossBatch* out);

  RunModel& model_;
  std::map<std::pair<int, uint64_t>, LossBatch> batches_;  // by (step, event)
  Confusion confusion_;           // while loading: the counts so far
  bool confusion_final_ = false;  // every record analysed (or failed)
};

/// "cross_entropy" / "nll_loss" for the loss calls whose per-sample losses
/// are analysed (F.cross_entropy, nn.CrossEntropyLoss, F.nll_loss,
/// nn.NLLLoss in any spelling the recorder writes); "" for the others.
std::string classification_function(const std::string& call);

/// The factor backward()'s loss is of the call's own output when it is
/// only that output scaled (rec.outer DivBackward0 or MulBackward0 and
/// rec.call_value recorded): 0.25 for `loss / 4` under gradient
/// accumulation, 1/128 for a sum divided by the items of all micro-batches
/// (the Hugging Face Trainer); NaN otherwise.
double loss_scale_factor(const LossEntry& e);
double loss_scale_factor(const schema::LossRecord& rec);

/// The arithmetic `rec`'s reduction performs, in words: "mean over 32
/// samples of −log p(target)", "sum over 24 tokens (8 padding tokens
/// ignored) of −log p(target)", "mean of binary cross-entropy (no
/// per-sample analysis)". A scaled loss (loss_scale_factor) says by what
/// backward()'s value was divided or multiplied; a composite loss (rec.outer
/// otherwise set: backward() ran on a tensor computed from the call's output)
/// says the value is more than the call's reduction; with no recognised call (rec.call empty) it says
/// the reduction is not available.
std::string reduction_in_words(const LossEntry& e, const LossBatch* analysed);
std::string reduction_in_words(const schema::LossRecord& rec, const LossBatch* analysed);

/// Whether `e` is the call `loss` names: a LossCall of that function, or the
/// ModuleCall of that nn loss module ("torch.nn." + class name). A record
/// whose event is kNoLossEvent, or is another event, has no call site.
bool is_loss_call_event(const LossEntry& loss, const schema::Event& e);

/// The value of argument `key` as recorded (Python repr), or "".
std::string loss_arg(const schema::LossRecord& rec, const char* key);

}  // namespace tvis::viewer
