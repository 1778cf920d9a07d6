// grad_clips.h: the run's torch.nn.utils.clip_grad_norm_ calls (GradClipRecord
// chunks, read through RunModel::records<>()) as plain values for the pages.
//
// Contract: never waits, like the index under it: grad_clips() answers from
// the records read so far, `*ready` false while some still load.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

/// One clip_grad_norm_ call.
struct GradClip {
  int step = -1;
  double max_norm = 0;
  double norm_type = 2;    // inf: the largest |gradient|
  double total_norm = 0;   // the gradients' norm before clipping (what the call returned)
  int parameters = 0;      // parameters with a gradient
  std::string call_site;   // "train.py:57"

  /// What the call multiplied every gradient by: torch's max_norm /
  /// (total_norm + 1e-6), capped at 1; nan when total_norm is not finite.
  double coefficient() const {
    if (!std::isfinite(total_norm)) return std::nan("");
    const double c = max_norm / (total_norm + 1e-6);
    return c < 1 ? c : 1;
  }
  /// The call scaled the gradients down (coefficient below 1).
  bool clipped() const { return coefficient() < 1; }
};

/// Every call, steps ascending (file order within a step).
inline std::vector<GradClip> grad_clips(RunModel& model, bool* ready = nullptr) {
  auto& index = model.records<schema::GradClipRecord>();
  if (ready) *ready = index.ready();
  std::vector<GradClip> out;
  for (const auto& [step, r] : index.all()) {
    GradClip c;
    c.step = r->step();
    c.max_norm = r->max_norm();
    c.norm_type = r->norm_type();
    c.total_norm = r->total_norm();
    c.parameters = r->parameters();
    c.call_site = r->call_site() ? r->call_site()->str() : "";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace tvis::viewer
