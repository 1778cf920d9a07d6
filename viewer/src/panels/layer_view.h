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
// LayerViewState is what the panel remembers: its choices (tab, toggle,
// clicks), the target it was last asked to show, and caches of what it
// derived (maps, textures); decoded values are the model's (one cache for
// every page). Whoever shows the panel owns one. layer_view_json() builds
// the LAYER object of the test surface when asked, from the model and that
// state (docs/viewer_test_surface.md).
//
// The panel's files, one concern each: layer_view.cpp (header and tabs),
// layer_pick.cpp (which tensor, its values and maps, the picture; nothing
// drawn), layer_grid.cpp (a grid of block means drawn over a picture),
// layer_on_image.cpp, layer_neurons.cpp, layer_stats.cpp (a tab each),
// layer_attention.cpp (where a token looks), layer_view_json.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "layer_attention.h"
#include "panel_context.h"
#include "picture_textures.h"
#include "tvis/viewer_model/decoded_values.h"
#include "tvis/viewer_model/followed_sample.h"
#include "tvis/viewer_model/layer_maps.h"
#include "tvis/viewer_model/tensor_index.h"
#include "tvis/widgets/heatmap.h"

namespace tvis::viewer {

/// Which call the panel shows, and for which sample (its batch row is the
/// model's answer: followed_sample.h).
struct LayerTarget {
  uint64_t event = 0;    // the module call (its forward event)
  int step = 0;
  int sample = -1;       // followed sample id; -1: the run follows none
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

  // What the panel was last asked to show (draw_layer_view sets it).
  bool shown = false;        // it showed a module call
  LayerTarget target;
  std::string module;        // the target call's module path
  bool of_gradient = false;  // the target's tensor is the gradient (the page's or the toggle's choice)

  // Caches of what the panel derived (the values themselves are the model's).
  std::shared_ptr<const DecodedTensor> values;   // the shown tensor's
  uint64_t maps_tensor = UINT64_MAX;
  int maps_row = -2;
  LayerMaps maps;
  std::shared_ptr<const DecodedTensor> picture;  // the sample's picture (null: none)
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
nlohmann::json layer_view_json(RunModel& model, LayerViewState& v);

/// Asks for the chunks the panel would read for `t` (its call's tensors and
/// values), so a later frame finds them resident. Never draws.
void prefetch_layer(RunModel& model, const LayerTarget& t);

}  // namespace tvis::viewer
