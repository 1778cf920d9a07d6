// inspector.h: the selected call: what it is, where it was called from and
// defined (click: the page's source view), its timing and gradient norm, and
// each of its tensors; the chosen one (Selection::tensor) is drawn below by
// the tensor view. For a module call, "Layer view" shows the shared layer
// panel (On image · Neurons · Stats, layer_view.h) in place of the tensors.
#pragma once

#include "layer_view.h"
#include "panel_context.h"
#include "tensor_view.h"

namespace tvis::viewer {

struct InspectorState {
  TensorViewState tensor_view;
  LayerViewState layer;     // the layer panel of the selected module call
  bool show_layer = false;  // "Layer view" chosen (else the tensors)
  bool layer_drawn = false; // the last frame drew the layer panel
};

void draw_inspector(PanelContext& c, InspectorState& state);

}  // namespace tvis::viewer
