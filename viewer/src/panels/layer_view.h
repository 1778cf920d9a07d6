// layer_view.h: every layer's On image · Neurons · Stats views, one shared
// panel (Replay beside its diagram, Explore's inspector for any module call).
//
//   On image  the layer's activation (or gradient) for the followed sample:
//             the map (layer_maps.h: mean |x| over channels per location,
//             per-token strength on the patch grid) painted over the sample's
//             picture, opacity adjustable; a click on a location lists every
//             neuron's raw value there. A call the recorder found softmax
//             attention in paints where [CLS] (or a clicked patch) looks
//             instead, by default (layer_attention.h).
//   Neurons   every channel / hidden dim as its own small map, strongest
//             first (virtualized rows), or labelled bars for vectors; a click
//             shows that neuron's exact numbers.
//   Stats     the activation's and the gradient's recorded statistics and
//             histograms, and the same module across the recorded steps.
//
// Missing values say why in place: a tensor kept as statistics only, or a
// row past the kept leading rows, names `tvis run --max-elems`.
//
// LayerViewState is what the panel remembers (caches keyed by tensor and
// row); whoever shows the panel owns one. layer_view_json() is the LAYER
// object of the test surface (docs/viewer_test_surface.md).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "layer_attention.h"
#include "panel_context.h"
#include "picture_textures.h"
#include "tvis/viewer_model/layer_maps.h"
#include "tvis/viewer_model/tensor_index.h"
#include "tvis/widgets/heatmap.h"

namespace tvis::viewer {

/// Which call the panel shows, and for which sample.
struct LayerTarget {
  uint64_t event = 0;    // the module call (its forward event)
  int step = 0;
  int sample = -1;       // followed sample id; -1: the run follows none
  int row = -1;          // that sample's row in the step's batch; -1 unknown
  std::optional<bool> gradient;  // set: the page decides (Replay: backward); else the panel's toggle
};

struct LayerViewState {
  enum Tab { OnImage = 0, Neurons = 1, Stats = 2 };
  int tab = OnImage;
  std::optional<int> tab_request;  // a tab asked for by command
  bool gradient = false;           // the toggle (when the target does not decide)
  float opacity = 0.6f;
  int picked_r = -1, picked_c = -1;  // the clicked location (On image)
  int picked_neuron = -1;            // the clicked neuron (Neurons)
  LayerAttention attention;          // On image of a call with softmax attention: where a token looks

  // What the last frame showed (for layer_view_json).
  bool shown = false;
  std::string module;
  uint64_t event = 0;  // the module call shown
  std::vector<std::string> neuron_labels;  // a classifier's logits: each value's class ("cat", else its index); else empty
  bool of_gradient = false;
  int step = 0, sample = -1, row = -1;
  std::string problem;  // why no map / neurons ("" when computed)
  nlohmann::json stats;  // {"activation": STATS|null, "gradient": STATS|null}, the records' statistics
  nlohmann::json thumbnail;  // budget_thumbnail_json of the shown tensor when its values were refused, else null

  // Caches.
  uint64_t values_tensor = UINT64_MAX;  // tensor whose values are decoded
  TensorValues values;
  std::string values_error;
  uint64_t maps_tensor = UINT64_MAX;
  int maps_row = -2;
  LayerMaps maps;
  uint64_t picture_tensor = UINT64_MAX;
  TensorValues picture;
  bool picture_bytes = false;
  widgets::HeatmapTexture texture;
  widgets::HeatmapTexture neuron_texture;
  widgets::HeatmapTexture thumbnail_texture;
  uint64_t texture_version = 1;
  PictureTextures textures;  // On image: the picture ("picture" + tensor) and the map ("maps" + texture_version)
  struct StepRow {
    int step = 0;
    double mean = NAN, std = NAN, mean_abs = NAN, grad = NAN;
  };
  std::string history_module;
  std::map<int, StepRow> history;  // step -> the module's first call there
  std::map<int, bool> history_done;
};

/// Draws the panel for `t` (the caller's context: model, Selection).
void draw_layer_view(PanelContext& c, LayerViewState& v, const LayerTarget& t);

/// The LAYER object for what the panel last showed, or null when it showed
/// nothing. `map` is decimated to at most 256 x 256 (block means). Added
/// keys: `stats` (the activation's and the gradient's recorded statistics:
/// mean, std, min, max, mean_abs, l2; null when not recorded), `problem`
/// (why map and neurons_order are null, when they are).
nlohmann::json layer_view_json(const LayerViewState& v);

/// The batch row of followed sample `sample` at `step` (-1 while the step's
/// samples load or when the sample is not in that batch).
int sample_row(RunModel& model, int step, int sample);

/// Asks for the chunks the panel would read for `t` (its call's tensors and
/// values), so a later frame finds them resident. Never draws.
void prefetch_layer(RunModel& model, const LayerTarget& t);

}  // namespace tvis::viewer
