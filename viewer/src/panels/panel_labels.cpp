#include "panel_labels.h"

#include <cinttypes>
#include <cstdio>

namespace tvis::viewer {

ImU32 phase_color(Phase phase) {
  switch (phase) {
    case Phase::Data: return IM_COL32(72, 190, 180, 255);
    case Phase::Forward: return IM_COL32(86, 150, 245, 255);
    case Phase::Loss: return IM_COL32(240, 150, 70, 255);
    case Phase::Backward: return IM_COL32(190, 110, 225, 255);
    case Phase::Optimizer: return IM_COL32(100, 200, 120, 255);
    case Phase::Evaluation: return IM_COL32(215, 200, 95, 255);
    default: return IM_COL32(120, 125, 135, 255);
  }
}

std::string call_site(RunModel& model, uint32_t file, uint32_t line) {
  if (line == 0) return {};
  const std::string& name = model.source_files().name(file);
  std::string shown = name.empty() ? "file " + std::to_string(file) : name;
  const size_t slash = shown.find_last_of('/');
  if (slash != std::string::npos) shown = shown.substr(slash + 1);
  return shown + ":" + std::to_string(line);
}

std::string duration_label(int64_t ns) {
  char buf[32];
  const double v = static_cast<double>(ns);
  if (ns < 1000) std::snprintf(buf, sizeof buf, "%" PRId64 " ns", ns);
  else if (ns < 1000000) std::snprintf(buf, sizeof buf, "%.3g us", v / 1e3);
  else if (ns < 1000000000) std::snprintf(buf, sizeof buf, "%.3g ms", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.3g s", v / 1e9);
  return buf;
}

std::string user_time_label(const UserTime& t) {
  if (!t.known || t.own <= 0) return duration_label(t.user);
  return duration_label(t.user) + "  (+" + duration_label(t.own) + " tvis)";
}

}  // namespace tvis::viewer
