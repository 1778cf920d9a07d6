// loss_call_site.h: where a loss was called, as the Loss page shows it: the
// source file and line of its call event, and that line's recorded text.
//
// Contract: non-blocking. The call's Event is read on demand (its Events
// chunk is asked for; Loading until it arrives). A loss has a call site only
// when its event is the very call the entry names (is_loss_call_event): a
// custom loss (no recognised call, or event kNoLossEvent) and a record whose
// event is another call answer None.
#pragma once

#include <cstdint>
#include <string>

#include "tvis/viewer_model/loss_entry.h"

namespace tvis::viewer {

class RunModel;

struct LossCallSite {
  enum class State { Found, Loading, None };
  State state = State::None;
  uint32_t file_id = 0;  // the run's source file id
  std::string file;      // its display path ("" when the run kept no name for it)
  uint32_t line = 0;     // 1-based
  std::string text;      // the line's recorded text, leading blanks trimmed ("" when not kept, or loading)
  bool found() const { return state == State::Found; }
};

LossCallSite loss_call_site(RunModel& model, const LossEntry& loss);

}  // namespace tvis::viewer
