// weights_parts.h (private to the Weights page's files): the pieces of the
// one-parameter view that more than one of its files uses: text and figures
// (weights_figures.cpp), the shown values and their decoded image
// (weights_values.cpp), the view itself (weights_one_param.cpp) and the
// test surface (weights_view.cpp). In a
// namespace of their own, so no other page's helper of the same name meets
// them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "weights_state.h"

namespace tvis::viewer::weights {

/// Text in the muted colour, wrapped.
void muted(const std::string& text);
/// "3, 5, 7" (at most 12 steps, then ", ...").
std::string steps_label(const std::vector<int>& steps);
/// The parameter the page shows: the chosen one, else the first known (then
/// remembered in `w.param`); "" when the run names none.
const std::string& shown_param(AppState& s, WeightsState& w);
/// ‖Δw‖/‖w‖ of `p` at `step` from the recorded statistics; NaN when unknown.
double update_ratio(AppState& s, const ParamTensors& p, int step, bool* loading);
/// One figure in a two-column table cell pair: its label (with `help` as
/// tooltip, when not null) and its value.
void figure(const char* label, const std::string& value, const char* help);
/// The L2 norm of `r`'s statistics, "—" when unknown.
std::string norm_of(const TensorRef& r);
/// The statistics table and the histogram (nothing when `st` is empty).
void draw_stats_and_histogram(const std::optional<TensorStats>& st);
/// What a tensor past --max-elems kept, said where its values are drawn
/// (and state()'s view.kept_note); "" when every value was kept.
std::string kept_note(const KeptValues& k);

/// The shown tensor's values as an image, `height` high: bars for vectors,
/// else a heatmap of the reduced image (conv kernels with their tile grid);
/// the tooltip names the exact cell of the full image. `note` is shown
/// above a partial image.
void draw_values(AppState& s, WeightsState& w, const ShownImage& si, const std::string& note, float height);
/// The decoded image of tensor `id` (what it kept: `kept`) under `key`, or
/// nullptr while its values load. With `update_of`, `id` is that
/// parameter's update at `step`: its values may be after − before
/// (update_values). Values come from the model's one cache; the page keeps
/// only the images it draws (at most kShownCached, the least recently drawn
/// dropped).
const ShownImage* shown_image(AppState& s, WeightsState& w, const std::string& key, uint64_t id, ValuesKept kept,
                              int step, const ParamTensors* update_of = nullptr);

/// state()["view"] on the Weights page (weights_view.cpp).
nlohmann::json view(AppState& s);
/// The page's commands (weights_view.cpp): {"param": NAME}, {"show":
/// "weight"|"grad"|"update"}, {"weights_tab": "One parameter"|"All layers"},
/// {"weights_sort": "name"|"size"|"update_ratio"}, {"thumbs_scroll": Y};
/// true done, false refused, null not the page's command.
nlohmann::json command(AppState& s, const nlohmann::json& cmd);

/// The "One parameter" tab's right side: the shown parameter at the
/// Selection's step (header, figures, values, statistics), or why not.
void draw_one_param(AppState& s, WeightsState& w);

}  // namespace tvis::viewer::weights
