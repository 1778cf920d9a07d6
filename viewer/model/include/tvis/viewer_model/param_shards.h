// param_shards.h: parameters a rank held a part of (FSDP2 / DTensor, FSDP1;
// RunMeta.param_shards, docs/run_layout.md), described in words and put back
// together from the parts the rank files hold.
//
// Contract: no ImGui and no file reads; assemble_shards() works on values
// the caller read (one TensorValues per rank). The whole tensor and its
// statistics come from the rank files alone: nothing ran across ranks while
// the training was recorded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

/// One rank's part of a sharded parameter (schema ParamShard).
struct ParamShardInfo {
  std::string name;
  std::vector<int64_t> global_shape, local_shape;
  std::vector<int64_t> offsets;  // box part: its first index per dim (empty for a flat part)
  int64_t flat_offset = -1;      // flat part (FSDP1): first element of the whole, row-major
  std::vector<int32_t> mesh_shape, mesh_coord;
  std::string placements, source;
};

/// The part of `name` in `shards`, or nullptr (the parameter is not sharded).
const ParamShardInfo* find_shard(const std::vector<ParamShardInfo>& shards, const std::string& name);

/// Where the part lies, in words: "shard 2 of 2 (Shard(0), fully_shard): rows
/// 16–31 of 32" (a box part: the sharded dims' ranges), "shard 1 of 2
/// (FlatShard, FullyShardedDataParallel): elements 0–535 of 1024" (a flat
/// part), "shard 1 of 2: empty" (no elements on this rank).
std::string shard_words(const ParamShardInfo& s);

/// One rank's part and its values (values kept in full; shape = local_shape).
struct ShardPart {
  int rank = 0;
  const ParamShardInfo* shard = nullptr;
  const TensorValues* values = nullptr;
};

/// The whole parameter put back from its parts. `ok` is false with `why`
/// when a part is missing or does not fit (no placement, values not kept in
/// full, a shape that is not the placement's, the whole not covered).
/// Replicated parts (the same place on several ranks) are written once each.
struct AssembledTensor {
  bool ok = false;
  std::string why;
  std::vector<int64_t> shape;   // the whole's
  std::vector<double> values;   // row-major
  int parts = 0;                // ranks whose part was placed
  double l2 = 0, mean = 0, min = 0, max = 0;
};
AssembledTensor assemble_shards(const std::vector<ShardPart>& parts);

}  // namespace tvis::viewer
