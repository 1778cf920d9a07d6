// rank_comparison.h: the ranks of a distributed run side by side, as numbers
// (no ImGui): each rank's loss curve, and one parameter's values per rank
// with the largest |difference| between ranks. Under DDP the weights after
// an optimizer step are identical on every rank (gradients are all-reduced
// before the step) while the losses differ by each rank's data; a non-zero
// difference says the replicas drifted apart.
//
// Contract: non-blocking like every model index: a comparison is Loading
// while any rank's record or values chunk is read (the caller asks again next
// frame); Ready with the figures, or with `why` saying what cannot be
// compared (a rank without the parameter at the step, values not kept,
// different shapes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tvis/viewer_model/chunk_body.h"
#include "tvis/viewer_model/decoded_values.h"
#include "tvis/viewer_model/param_shards.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

class RunModel;

/// One rank's model, by rank number.
using RankModel = std::pair<int, RunModel*>;

/// One rank's loss per recorded backward(): (step, value), in (step, event) order.
struct RankLossCurve {
  int rank = 0;
  std::vector<std::pair<int, double>> points;
  bool ready = false;  // every Loss chunk of the rank was indexed
};

/// Every rank's loss curve, in the order of `models`.
std::vector<RankLossCurve> rank_loss_curves(const std::vector<RankModel>& models);

/// The largest |a_i - b_i| over every element i and every pair of ranks,
/// which is max_i (max over ranks - min over ranks). `comparable` is false
/// (with `why`) when fewer than two tensors are given or their shapes or
/// kept element counts differ; NaN on one rank and a number on another
/// counts as a difference of +inf, NaN on both as none.
struct ValuesDifference {
  bool comparable = false;
  double max_abs = 0;
  uint64_t at = 0;          // flat index of the (first) largest difference
  uint64_t differing = 0;   // elements that are not equal on every rank
  uint64_t elements = 0;    // elements compared
  std::string why;
};
ValuesDifference values_difference(const std::vector<const TensorValues*>& per_rank);

/// One rank's value of the compared tensor, from that rank's model's one
/// cache of decoded values (RunModel::values()).
struct RankWeight {
  int rank = 0;
  std::string error;    // why this rank has no values ("" = values)
  std::shared_ptr<const DecodedTensor> tensor;  // null when the rank has no record to read
  /// The kept values (empty without any).
  const std::vector<double>& values() const {
    static const std::vector<double> none;
    return tensor && error.empty() ? tensor->values.values : none;
  }
  double l2 = 0;        // over the kept values
  double mean = 0;
  /// A sharded parameter: where this rank's part lies (shard_words()); "" when the rank holds it whole.
  std::string shard;
};

/// A parameter's weight on every rank at one step: the weight after the
/// step (ParamRecord.after) where every rank recorded it, else the weight
/// before the step (`tensor` says which). A sharded parameter (a rank
/// recorded a placement of it: FSDP2, DTensor, FSDP1) is each rank's part:
/// `assembled` is the whole put back from them (param_shards.h), and the
/// parts are not compared with each other (`difference.why` says so).
struct WeightAcrossRanks {
  ChunkRead state = ChunkRead::Loading;
  std::string param;
  int step = 0;
  const char* tensor = "after";  // "after" | "before"
  std::vector<RankWeight> ranks;
  ValuesDifference difference;
  bool sharded = false;
  AssembledTensor assembled;  // when sharded
};

WeightAcrossRanks weight_across_ranks(const std::vector<RankModel>& models, const std::string& param, int step);

}  // namespace tvis::viewer
