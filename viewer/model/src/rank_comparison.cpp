#include "tvis/viewer_model/rank_comparison.h"

#include <cmath>
#include <limits>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

std::vector<RankLossCurve> rank_loss_curves(const std::vector<RankModel>& models) {
  std::vector<RankLossCurve> out;
  for (const auto& [rank, model] : models) {
    RankLossCurve c;
    c.rank = rank;
    if (model && model->status() == RunStatus::Open) {
      c.ready = model->losses().ready();
      c.points = model->losses().curve();
    }
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

// |a - b| with NaN against a number as +inf and NaN against NaN as 0.
double abs_difference(double a, double b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na && nb ? 0.0 : std::numeric_limits<double>::infinity();
  if (a == b) return 0.0;  // equal infinities too
  return std::fabs(a - b);
}

}  // namespace

ValuesDifference values_difference(const std::vector<const TensorValues*>& per_rank) {
  ValuesDifference d;
  if (per_rank.size() < 2) {
    d.why = "fewer than two ranks to compare";
    return d;
  }
  const TensorValues& first = *per_rank.front();
  for (const TensorValues* v : per_rank) {
    if (v->shape != first.shape || v->values.size() != first.values.size()) {
      d.why = "the ranks' tensors differ in shape or in the elements kept";
      return d;
    }
  }
  d.comparable = true;
  d.elements = first.values.size();
  for (size_t i = 0; i < first.values.size(); ++i) {
    double worst = 0;
    for (size_t r = 1; r < per_rank.size(); ++r)
      for (size_t q = 0; q < r; ++q) worst = std::max(worst, abs_difference(per_rank[r]->values[i], per_rank[q]->values[i]));
    if (worst > 0) ++d.differing;
    if (worst > d.max_abs) {
      d.max_abs = worst;
      d.at = i;
    }
  }
  return d;
}

namespace {

void summarise(RankWeight& w) {
  double sum = 0, sq = 0;
  for (double v : w.values()) {
    sum += v;
    sq += v * v;
  }
  const size_t n = w.values().size();
  w.l2 = std::sqrt(sq);
  w.mean = n ? sum / static_cast<double>(n) : 0.0;
}

}  // namespace

WeightAcrossRanks weight_across_ranks(const std::vector<RankModel>& models, const std::string& param, int step) {
  WeightAcrossRanks out;
  out.param = param;
  out.step = step;
  // Which tensor: "after" only when every rank recorded it.
  std::vector<const schema::ParamRecord*> records;
  bool loading = false;
  for (const auto& [rank, model] : models) {
    const schema::ParamRecord* p = nullptr;
    if (model && model->status() == RunStatus::Open) {
      p = model->optimizer_steps().param(step, param);
      if (!p && !model->optimizer_steps().ready()) loading = true;
    } else if (model && model->status() == RunStatus::Opening) {
      loading = true;
    }
    records.push_back(p);
    if (p && p->after() < 0) out.tensor = "before";
  }
  if (loading) return out;
  std::vector<const TensorValues*> compared;
  std::vector<const ParamShardInfo*> shards;
  for (const auto& [rank, model] : models) {
    const ParamShardInfo* s = model && model->status() == RunStatus::Open
                                  ? find_shard(model->info().param_shards, param) : nullptr;
    shards.push_back(s);
    if (s) out.sharded = true;
  }
  for (size_t i = 0; i < models.size(); ++i) {
    RankWeight w;
    w.rank = models[i].first;
    RunModel* model = models[i].second;
    const schema::ParamRecord* p = records[i];
    if (shards[i]) w.shard = shard_words(*shards[i]);
    if (!model || model->status() != RunStatus::Open) {
      w.error = model && !model->error().empty() ? model->error() : "the rank's file is not open";
    } else if (!p) {
      w.error = "no record of " + param + " at step " + std::to_string(step);
    } else {
      const int64_t id = out.tensor[0] == 'a' ? p->after() : static_cast<int64_t>(p->weight());
      w.tensor = model->values().get(static_cast<uint64_t>(id), step);
      if (w.tensor->loading) loading = true;
      w.error = w.tensor->error;
    }
    if (w.error.empty()) summarise(w);
    out.ranks.push_back(std::move(w));
  }
  if (loading) return out;
  out.state = ChunkRead::Ready;
  if (out.sharded) {  // the parts put back together; parts of different places are not compared
    std::vector<ShardPart> parts;
    for (size_t i = 0; i < out.ranks.size(); ++i) {
      const RankWeight& w = out.ranks[i];
      parts.push_back({w.rank, shards[i], w.error.empty() && w.tensor ? &w.tensor->values : nullptr});
    }
    out.assembled = assemble_shards(parts);
    out.difference.why = "sharded: each rank holds a different part of " + param;
    return out;
  }
  for (const RankWeight& w : out.ranks) {
    if (!w.error.empty()) {
      out.difference.why = "rank " + std::to_string(w.rank) + ": " + w.error;
      return out;
    }
    compared.push_back(&w.tensor->values);
  }
  out.difference = values_difference(compared);
  return out;
}

}  // namespace tvis::viewer
