// panel_context.h: what a shared panel (inspector, tensor view, the per-layer
// views to come) draws from: the run's model, the shared Selection and the
// application's options. Never a page's state: Explore and a future Replay
// page show the same inspector by handing it their own context.
#pragma once

#include <cstdint>
#include <functional>

#include "../selection.h"
#include "tvis/viewer/app.h"
#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

struct PanelContext {
  RunModel& model;
  Selection& selection;
  const AppOptions& options;  // the texture uploader for heatmaps
  /// The page's answer to a click on a call site (Explore: its Source panel
  /// at file:line); empty when the page shows no source.
  std::function<void(uint32_t file, uint32_t line)> show_source;
};

}  // namespace tvis::viewer
