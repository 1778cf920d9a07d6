// budget_thumbnail: what a panel shows for a tensor whose values the run's
// byte budget (`tvis run --max-run-bytes`) refused. The recorder stores, in
// the tensor's record, block means of the tensor seen as [dim 0, the rest]
// (a vector as one row), at most 32 x 32, row-major (adaptive average
// pooling: blocks differ by at most one element a side). The panels draw it
// as a heatmap, captioned as what it is, never as the tensor's values.
#pragma once

#include <nlohmann/json.hpp>

#include "panel_context.h"
#include "tvis/viewer_model/tensor_ref.h"
#include "tvis/widgets/heatmap.h"

namespace tvis::viewer {

/// True when `t` carries a well-formed thumbnail (rows * cols values).
bool has_budget_thumbnail(const TensorRef& t);

/// Draws the thumbnail with its caption; nothing when it has none. `texture`
/// is the caller's cache (one per place it is drawn).
void draw_budget_thumbnail(const PanelContext& c, const TensorRef& t, widgets::HeatmapTexture& texture);

/// {"rows": R, "cols": C, "values": [[...] x R]} for state(), or null.
nlohmann::json budget_thumbnail_json(const TensorRef& t);

/// One sentence for a panel's "values not kept" line when the budget refused them.
const char* budget_refused_sentence();

}  // namespace tvis::viewer
