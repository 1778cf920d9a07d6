// selection.h: the viewer's shared cursor: where in the run every page looks.
// Pages and panels read and write it; none keeps its own copy. It belongs to
// one open run (`run` is the open's generation) and is reset when another
// run opens.
#pragma once

#include <cstdint>
#include <optional>

#include "tvis/viewer_model/records.h"

namespace tvis::viewer {

struct Selection {
  uint64_t run = 0;                  // generation of the open run (bumped by each open)
  std::optional<uint64_t> event;     // the selected call
  int step = 0;                      // the navigator's step
  Phase phase = Phase::None;  // the navigator's phase (None: any)
  bool jump_pending = false;         // the navigator asked for (step, phase); resolved when its chunk loads
  std::optional<uint64_t> scroll_to; // the call list scrolls this row into view
  std::optional<uint64_t> tensor;    // the tensor shown in the inspector
  int sample_cursor = 0;             // index of the followed sample (RunModel::samples().followed())

  /// A fresh cursor for a newly opened run (generation + 1).
  void reset_for_new_run() { *this = Selection{run + 1}; }
  /// Selects event `id` as a click on its row does: the list scrolls to it
  /// and a pending navigator jump is dropped.
  void select_event(uint64_t id) {
    event = id;
    scroll_to = id;
    jump_pending = false;
  }
};

}  // namespace tvis::viewer
