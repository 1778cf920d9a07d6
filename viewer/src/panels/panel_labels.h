// panel_labels.h: the few words and colours every panel and page uses alike.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>

#include "tvis/viewer_model/run_model.h"
#include "tvis/viewer_model/user_time.h"

namespace tvis::viewer {

/// Colour of a phase (bars, chips); a grey for Phase::None.
ImU32 phase_color(Phase phase);
/// "train.py:27" for (file, line); "" when line is 0.
std::string call_site(RunModel& model, uint32_t file, uint32_t line);
/// "1.25 ms", "830 us", "2.1 s".
std::string duration_label(int64_t ns);
/// A call's or phase's time as a user reads it: the user's time, with tvis's
/// own part apart ("12 us  (+268 ms tvis)"); the wall time alone when own
/// time was not recorded.
std::string user_time_label(const UserTime& t);

}  // namespace tvis::viewer
