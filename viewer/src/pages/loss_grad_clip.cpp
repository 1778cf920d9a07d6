// The Loss page's gradient clipping panel: what torch.nn.utils.clip_grad_norm_
// measured and did at the shown step (the norm before clipping, the limit,
// the factor every gradient was multiplied by), and the norm against the
// limit over the run (click a point to go to its step). Drawn only when the
// run recorded a call (grad_clips.h); state()'s view.grad_clip says the same.
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../link.h"
#include "../theme.h"
#include "loss_state.h"
#include "tvis/viewer_model/grad_clips.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/line_plot.h"

namespace tvis::viewer {

namespace {

std::string norm_name(double norm_type) {
  if (std::isnan(norm_type)) return "gradient norm";  // clip_grads_with_norm_: given the norm, not its type
  if (std::isinf(norm_type)) return "max |g|";
  if (norm_type == 2) return "L2 norm";
  return "L" + widgets::format_number(norm_type, 3) + " norm";
}

// One call in words: "L2 norm 3.21 > max_norm 1: every gradient × 0.311".
std::string clip_in_words(const GradClip& c) {
  const std::string norm = norm_name(c.norm_type) + " " + widgets::format_number(c.total_norm, 4);
  const std::string limit = "max_norm " + widgets::format_number(c.max_norm, 4);
  if (!std::isfinite(c.total_norm))
    return norm + ": a gradient is not finite, so clipping multiplied every gradient by nan or 0";
  if (!c.clipped()) return norm + " <= " + limit + ": the gradients were left as they were";
  return norm + " > " + limit + ": every gradient was multiplied by " + widgets::format_number(c.coefficient(), 4);
}

void draw_norm_curve(AppState& s, const std::vector<GradClip>& clips, float height) {
  std::vector<double> steps, norms, limits;
  for (const GradClip& c : clips) {
    steps.push_back(c.step);
    norms.push_back(c.total_norm);
    limits.push_back(c.max_norm);
  }
  widgets::PlotSeries series[2];
  series[0].label = "gradient norm";
  series[0].x = widgets::ValueSpan(steps);
  series[0].y = widgets::ValueSpan(norms);
  series[1].label = "max_norm";
  series[1].x = widgets::ValueSpan(steps);
  series[1].y = widgets::ValueSpan(limits);
  widgets::LinePlotOptions o;
  o.size = ImVec2(0, height);
  o.marker_x = s.selection.step;
  o.integer_x = true;
  const widgets::LinePlotResult r = widgets::line_plot("##grad_clip_curve", series, 2, o);
  if (r.clicked && r.has_point) go_to_step(s, static_cast<int>(std::lround(r.x)));
}

}  // namespace

void draw_loss_grad_clip(AppState& s) {
  bool ready = false;
  const std::vector<GradClip> clips = grad_clips(s.model, &ready);
  if (clips.empty()) return;
  ImGui::Separator();
  ImGui::TextUnformatted("Gradient clipping");
  int clipped = 0, not_finite = 0;
  for (const GradClip& c : clips) {
    clipped += c.clipped();
    not_finite += !std::isfinite(c.total_norm);
  }
  std::string summary = "clip_grad_norm_ scaled the gradients down at " + std::to_string(clipped) + " of " +
                        std::to_string(clips.size()) + " calls";
  if (not_finite > 0) summary += "; at " + std::to_string(not_finite) + " the norm was not finite";
  if (!ready) summary += " (still reading)";
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
  ImGui::TextWrapped("%s", summary.c_str());
  ImGui::PopStyleColor();
  bool any = false;
  for (const GradClip& c : clips) {
    if (c.step != s.selection.step) continue;
    any = true;
    const ImU32 color = c.clipped() || !std::isfinite(c.total_norm) ? colors::kWarning : ImGui::GetColorU32(ImGuiCol_Text);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(color));
    ImGui::TextWrapped("%s", clip_in_words(c).c_str());
    ImGui::PopStyleColor();
    ImGui::TextDisabled("%d parameters%s%s", c.parameters, c.call_site.empty() ? "" : ", at ", c.call_site.c_str());
  }
  if (!any) ImGui::TextDisabled("No clip_grad_norm_ call at step %d.", s.selection.step);
  draw_norm_curve(s, clips, ImGui::GetFontSize() * 7);
}

nlohmann::json loss_grad_clip_view(AppState& s) {
  bool ready = false;
  const std::vector<GradClip> clips = grad_clips(s.model, &ready);
  nlohmann::json calls = nlohmann::json::array();
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  for (const GradClip& c : clips)
    calls.push_back({{"step", c.step}, {"total_norm", number(c.total_norm)}, {"max_norm", number(c.max_norm)},
                     {"norm_type", number(c.norm_type)}, {"coefficient", number(c.coefficient())},
                     {"clipped", c.clipped()}, {"parameters", c.parameters}, {"call_site", c.call_site},
                     {"words", clip_in_words(c)}});
  return {{"calls", calls}, {"ready", ready}};
}

}  // namespace tvis::viewer
