// layer_parts.h: what the layer panel's files share (layer_view.h lists
// them). Internal to panels/.
#pragma once

#include <imgui.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../theme.h"
#include "layer_view.h"
#include "picture_textures.h"

namespace tvis::viewer {

/// What the panel shows for its target, found without drawing.
struct LayerPick {
  TensorRef shown;         // the call's output or gradient record (empty: none, or loading)
  int row = -1;            // the sample's batch row at the step (followed_sample.h)
  std::string problem;     // why there is no map and no neurons ("" when v.maps holds them)
  bool thumbnail = false;  // the shown record carries a budget thumbnail (budget_thumbnail.h)
  /// The panel draws the thumbnail in place of the values.
  bool shows_thumbnail() const { return !problem.empty() && thumbnail; }
};

/// The tensor of v.target (call_tensors.h: output, or gradient when
/// v.of_gradient), its values from the model's cache, its maps for the
/// sample's row (kept in v) and the sample's picture (v.picture). Never
/// draws, never blocks: a part still loading is a "loading" problem.
LayerPick pick_layer(RunModel& model, LayerViewState& v, const CallRef& call);

/// A classifier's logits (the output a loss of the step took as logits):
/// each value's class name where the samples carry them ("3" where one has
/// none); empty for any other tensor.
std::vector<std::string> neuron_labels(RunModel& model, const LayerViewState& v);

/// Draws a rows x cols grid of values as at most max_blocks block means a
/// side (block_means.h) into [min, max], coloured up to `hi`: one texture
/// (target.key naming the values) drawn at `alpha` when target has textures
/// and an uploader, else one rectangle per block. Returns the cell under
/// the mouse ({-1, -1}: none).
std::pair<int, int> draw_grid(ImDrawList* dl, ImVec2 min, ImVec2 max, int rows, int cols,
                              const std::function<double(int, int)>& at, double hi, float alpha, int max_blocks,
                              const TextureTarget& target);
/// Wrapped text in `color` (a reason, a hint).
void say(const std::string& text, unsigned color = colors::kMuted);

/// "On image", "Neurons" or "Stats" (LAYER.tab).
const char* layer_tab_name(int tab);

// The tabs, one file each.
void draw_on_image(PanelContext& c, LayerViewState& v);
void draw_neurons(PanelContext& c, LayerViewState& v);
void draw_stats(PanelContext& c, LayerViewState& v, const CallRef& call);

}  // namespace tvis::viewer
