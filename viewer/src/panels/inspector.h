// inspector.h: the selected call: what it is, where it was called from and
// defined (click: the page's source view), its timing and gradient norm, and
// each of its tensors; the chosen one (Selection::tensor) is drawn below by
// the tensor view.
#pragma once

#include "panel_context.h"
#include "tensor_view.h"

namespace tvis::viewer {

struct InspectorState {
  TensorViewState tensor_view;
};

void draw_inspector(PanelContext& c, InspectorState& state);

}  // namespace tvis::viewer
