// Weights across ranks: of a distributed run, the shown parameter's weight
// after the step on every rank side by side, and the largest |difference|
// between ranks (0 under DDP: every replica applies the same all-reduced
// gradient). Each rank's values are read once per (parameter, step).
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <string>

#include "../ranks.h"
#include "../theme.h"
#include "tvis/widgets/format_number.h"
#include "weights_state.h"

namespace tvis::viewer {

using nlohmann::json;

// state()'s across_ranks.assembled.values: the whole's values up to this many elements (else null).
constexpr size_t kAssembledValuesInState = 1 << 16;

const RanksImage* ranks_image(AppState& s, WeightsState& w, const std::string& param, int step) {
  if (s.ranks.single() || param.empty()) return nullptr;
  const std::string key = param + "/" + std::to_string(step);
  auto it = w.ranks.find(key);
  if (it != w.ranks.end()) return &it->second;
  WeightAcrossRanks across = weight_across_ranks(rank_models(s), param, step);
  if (across.state == ChunkRead::Loading) return nullptr;
  if (w.ranks.size() >= kShownCached) w.ranks.erase(w.ranks.begin());
  RanksImage& ri = w.ranks[key];
  std::vector<double> all;
  for (const RankWeight& r : across.ranks) {
    if (!r.error.empty()) {
      ri.images.emplace_back();
      continue;
    }
    ri.images.push_back(reduce_image(weight_image(r.tensor->values), kRankSide));
    all.insert(all.end(), r.values().begin(), r.values().end());
  }
  if (across.sharded && across.assembled.ok) {
    TensorValues whole;
    whole.values = across.assembled.values;
    whole.shape = across.assembled.shape;
    ri.assembled = reduce_image(weight_image(whole), kShownSide);
    all.insert(all.end(), whole.values.begin(), whole.values.end());
  }
  ri.range = widgets::color_range_of(widgets::ValueSpan(all), true);
  ri.across = std::move(across);
  return &ri;
}

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// A sharded parameter: the whole put back from the rank files' parts, or why not.
std::string assembled_words(const WeightAcrossRanks& a) {
  const AssembledTensor& t = a.assembled;
  if (!t.ok) return "sharded; the whole cannot be put back: " + t.why;
  return "sharded: the whole " + shape_text(t.shape) + " assembled from " + std::to_string(t.parts) +
         " ranks' parts: ‖w‖ " + widgets::format_number(t.l2, 6) + ", mean " +
         widgets::format_number(t.mean, 4) + ", min " + widgets::format_number(t.min, 4) + ", max " +
         widgets::format_number(t.max, 4);
}

// The difference in words: what a user checks under DDP.
std::string difference_words(const WeightAcrossRanks& a) {
  if (a.sharded) return assembled_words(a);
  const ValuesDifference& d = a.difference;
  if (!d.comparable) return "cannot compare: " + d.why;
  if (d.differing == 0)
    return "largest |difference| across ranks = 0: identical on every rank (" + std::to_string(d.elements) +
           " elements)";
  return "largest |difference| across ranks = " + widgets::format_exact(d.max_abs) + " at element " +
         std::to_string(d.at) + "; " + std::to_string(d.differing) + " of " + std::to_string(d.elements) +
         " elements differ";
}

}  // namespace

void draw_across_ranks(AppState& s, WeightsState& w, const std::string& param, int step) {
  if (s.ranks.single()) return;
  const RanksImage* ri = ranks_image(s, w, param, step);
  if (!ri) {
    ImGui::TextDisabled("Reading %s on every rank ...", param.c_str());
    return;
  }
  const WeightAcrossRanks& a = ri->across;
  ImGui::Text("Across %zu ranks, the weight %s step %d:", a.ranks.size(), a.tensor[0] == 'a' ? "after" : "before",
              step);
  ImGui::SameLine();
  const bool same = a.sharded ? a.assembled.ok : a.difference.comparable && a.difference.differing == 0;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(same ? colors::kAccent : colors::kWarning), "%s",
                     difference_words(a).c_str());
  const float em = ImGui::GetFontSize();
  if (a.sharded && ri->assembled.rows > 0 && ri->assembled.cols > 0) {
    ImGui::TextDisabled("the whole %s, assembled from %d ranks' parts:", shape_text(a.assembled.shape).c_str(),
                        a.assembled.parts);
    widgets::HeatmapOptions o;
    o.size = ImVec2(0, em * 8);
    o.colormap = widgets::Colormap::Diverging;
    o.has_range = true;
    o.range = ri->range;
    widgets::heatmap("##assembled", widgets::ValueSpan(ri->assembled.values), ri->assembled.rows,
                     ri->assembled.cols, o);
  }
  const int n = static_cast<int>(a.ranks.size());
  if (!ImGui::BeginTable("wranks", std::max(1, n), ImGuiTableFlags_SizingStretchSame)) return;
  for (int i = 0; i < n; ++i) {
    const RankWeight& r = a.ranks[static_cast<size_t>(i)];
    ImGui::TableNextColumn();
    ImGui::PushID(i);
    ImGui::Text("rank %d%s", r.rank, r.rank == shown_rank(s) ? " (shown)" : "");
    if (!r.shard.empty()) ImGui::TextWrapped("%s", r.shard.c_str());
    if (!r.error.empty()) {
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kMuted), "%s", r.error.c_str());
    } else {
      ImGui::TextDisabled("‖w‖ %s  mean %s", widgets::format_number(r.l2, 6).c_str(),
                          widgets::format_number(r.mean, 4).c_str());
      const WeightImage& img = ri->images[static_cast<size_t>(i)];
      if (img.rows > 0 && img.cols > 0) {
        widgets::HeatmapOptions o;
        o.size = ImVec2(0, em * 5);
        o.colormap = widgets::Colormap::Diverging;
        o.has_range = true;
        o.range = ri->range;
        o.show_colorbar = false;
        widgets::heatmap("##rankheat", widgets::ValueSpan(img.values), img.rows, img.cols, o);
      }
    }
    ImGui::PopID();
  }
  ImGui::EndTable();
}

json across_ranks_view(AppState& s, WeightsState& w, const std::string& param, int step) {
  if (s.ranks.single() || param.empty()) return nullptr;
  const RanksImage* ri = ranks_image(s, w, param, step);
  if (!ri) return {{"state", "loading"}, {"param", param}, {"step", step}};
  const WeightAcrossRanks& a = ri->across;
  json ranks = json::array();
  for (const RankWeight& r : a.ranks) {
    json e = {{"rank", r.rank}, {"error", r.error.empty() ? json(nullptr) : json(r.error)},
              {"shard", r.shard.empty() ? json(nullptr) : json(r.shard)}};
    if (r.error.empty()) {
      e["l2"] = r.l2;
      e["mean"] = r.mean;
      e["count"] = r.values().size();
    }
    ranks.push_back(e);
  }
  const ValuesDifference& d = a.difference;
  json assembled = nullptr;
  if (a.sharded) {
    const AssembledTensor& t = a.assembled;
    assembled = {{"ok", t.ok}, {"why", t.ok ? json(nullptr) : json(t.why)}, {"shape", t.shape}, {"parts", t.parts}};
    if (t.ok) {
      assembled["count"] = t.values.size();
      assembled["l2"] = t.l2;
      assembled["mean"] = t.mean;
      assembled["min"] = t.min;
      assembled["max"] = t.max;
      // the whole's values for a test to compare with the model's parameter (small tensors only)
      assembled["values"] = t.values.size() <= kAssembledValuesInState ? json(t.values) : json(nullptr);
    }
  }
  return {{"state", "ready"},
          {"sharded", a.sharded},
          {"assembled", assembled},
          {"param", param},
          {"step", step},
          {"tensor", a.tensor},
          {"ranks", ranks},
          {"comparable", d.comparable},
          {"max_abs_difference", d.comparable && std::isfinite(d.max_abs) ? json(d.max_abs) : json(nullptr)},
          {"differing", d.differing},
          {"elements", d.elements},
          {"why", d.why.empty() ? json(nullptr) : json(d.why)},
          {"words", difference_words(a)}};
}

}  // namespace tvis::viewer
