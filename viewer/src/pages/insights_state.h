// insights_state.h: what the Insights page remembers between frames
// (its PageState, replaced when another run opens). The page's files:
// insights_page.cpp (the sub-page tabs, the library-attention note, the
// test surface: state().insights / state().insight, view, commands, links),
// insights_data.cpp (decoded tensors and the sample's picture, cached),
// attention_view.cpp, gradcam_view.cpp, embeddings_view.cpp (one sub-page each;
// what each shows, and its state().view, computed by attention_shown.h,
// gradcam_shown.h and embeddings_shown.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "../app_state.h"
#include "../panels/picture_textures.h"
#include "tvis/viewer_model/attention_rollout.h"
#include "tvis/viewer_model/decoded_values.h"
#include "tvis/viewer_model/followed_sample.h"
#include "tvis/viewer_model/pca.h"
#include "tvis/viewer_model/tensor_index.h"
#include "tvis/widgets/heatmap.h"

namespace tvis::viewer {

/// The insight sub-pages, in tab order; names as the test surface spells them.
enum class InsightPage { Attention, GradCam, Embeddings };
const char* insight_page_name(InsightPage p);
std::optional<InsightPage> insight_page_named(const std::string& name);

struct AttentionState {
  std::string module;               // the layer shown ("" = the first of the step)
  int head = -1;                    // -1: mean over heads
  int first = 0, last = -1;         // rollout range, indices into the step's layers (-1: the last)
  int query = -1;                   // image models: the patch row painted over the picture (-1: [CLS] or the first)
  bool paint_rollout = true;        // image models: paint the rollout's row (false: the shown layer's map)
  float opacity = 0.6f;
  widgets::HeatmapTexture map_texture, rollout_texture;
  std::vector<std::unique_ptr<widgets::HeatmapTexture>> head_textures;
  uint64_t version = 1;
  std::string rollout_key;          // what `rollout` was computed for
  std::vector<double> rollout;
  std::string rollout_problem;
};

struct GradCamState {
  std::string module;               // "" = the first conv layer of the step
  bool true_class = false;          // --gradcam-true maps
  float opacity = 0.55f;
  int colormap = 0;                 // widgets::Colormap
  widgets::HeatmapTexture texture;
};

/// One module's (or table's) points and their PCA, computed once.
struct EmbeddingCloud {
  bool loading = true;
  std::string problem;             // "" when computed
  Pca2 pca;
  std::vector<int> steps, samples; // per point (tables: -1, row); samples: -1 = a row no sample followed
  std::vector<int> rows;           // per point: batch row (-1 unknown; tables: the table's row)
  std::vector<std::string> labels; // per point: class or token ("" unknown)
  double ms = 0;                   // time the PCA took
  int recorded = -1;               // rows recorded before thinning to kMaxPoints (-1: tables, not thinned)
};

struct EmbeddingsState {
  int depth = 0;                    // index into the modules with vectors, forward order
  bool tables = false;              // showing an nn.Embedding table instead
  int table = 0;
  std::map<std::string, EmbeddingCloud> cache;  // per module, and per table as "table:" + module
  // Drawn geometry (the test surface's, as AppState::drawn): the scatter's
  // box as last drawn (screen coordinates) and the point under the mouse.
  struct Box {
    bool drawn = false;
    float x = 0, y = 0, side = 0;
  } drawn;
  int hovered = -1;
};

struct InsightsState : PageState {
  InsightPage page = InsightPage::Attention;
  std::optional<InsightPage> request;  // a sub-page asked for by link or command
  int sample = -1;                  // the sample shown when the run follows none (records' ids)
  AttentionState attention;
  GradCamState gradcam;
  EmbeddingsState embeddings;
  PictureTextures textures;         // pictures and maps as drawn (keys: texture_target)
};

InsightsState& insights_state(AppState& s);

/// The insight sub-pages this run has what they need for (state().insights).
std::vector<InsightPage> present_insights(AppState& s);

// insights_data.cpp
/// The values of tensor `id` (recorded at `step`, INT32_MIN: anywhere): the
/// model's one cache (decoded_values.h); `loading` while its chunks are read.
std::shared_ptr<const DecodedTensor> decoded_tensor(AppState& s, uint64_t id, int step);
/// The picture of followed sample `sample` at `step` (followed_sample.h), or
/// nullptr when none is recorded or it is loading.
std::shared_ptr<const DecodedTensor> sample_picture(AppState& s, int step, int sample);
/// The samples that have an entry at `step` among `entries` (Attention's or
/// Grad-CAM's records), in first-seen order.
template <typename Entries>
std::vector<int> samples_at_step(const Entries& entries, int step) {
  std::vector<int> out;
  for (const auto& e : entries)
    if (e.step == step && std::find(out.begin(), out.end(), e.sample) == out.end()) out.push_back(e.sample);
  return out;
}
/// The sample the sub-pages show: the followed one ([ / ]), else st.sample.
int insight_sample(AppState& s, InsightsState& st, const std::vector<int>& have);
/// Draws `map` (rows x cols, >= 0) over the picture into [min, max], with
/// `opacity`; the picture's rectangle is the caller's. With a target (its
/// key naming the map's values), one texture drawn at `opacity`, uploaded
/// once per key and colormap; else one rectangle per cell.
void draw_map_over(ImDrawList* dl, ImVec2 min, ImVec2 max, const std::vector<double>& map, int rows, int cols,
                   float opacity, int colormap, const TextureTarget& target = {});
/// A texture target in the sub-pages' set for values named `key` (a tensor id and more).
TextureTarget texture_target(AppState& s, InsightsState& st, const std::string& key);
/// Muted wrapped text (a reason, a hint).
void insight_hint(const std::string& text);

// One sub-page each: draw, view (state().view), command (null: not known).
void draw_attention(AppState& s, InsightsState& st);
nlohmann::json attention_command(AppState& s, InsightsState& st, const nlohmann::json& cmd);
void draw_gradcam(AppState& s, InsightsState& st);
nlohmann::json gradcam_command(AppState& s, InsightsState& st, const nlohmann::json& cmd);
void draw_embeddings(AppState& s, InsightsState& st);
nlohmann::json embeddings_command(AppState& s, InsightsState& st, const nlohmann::json& cmd);

}  // namespace tvis::viewer
