// loss_state.h: what the Loss page remembers between frames (AppState::loss,
// replaced when another run opens). The page's files: loss_page.cpp (layout,
// the curve and the call, view and commands), loss_samples.cpp (the
// worst-first list and a language model's tokens), loss_confusion.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "../app_state.h"
#include "tvis/viewer_model/loss_analysis.h"
#include "tvis/viewer_model/step_stops.h"
#include "tvis/widgets/heatmap.h"

namespace tvis::viewer {

struct LossState {
  explicit LossState(RunModel& model) : stops(model) {}
  uint64_t generation = 0;      // Selection::run this state belongs to
  StepStops stops;              // where each step's batch is (the samples' pictures)
  int64_t hovered_row = -1;     // the sample row under the mouse last frame (-1: none)
  const char* hovered_picture = "none";  // its picture in the tooltip: "drawn", "loading" or "none"
  int backward = 0;             // which of the step's loss records is shown (0: the first)
  int token_row = 0;            // the language model's sequence shown
  bool normalised = false;      // confusion matrix: row-normalised instead of counts
  widgets::HeatmapTexture confusion_texture;
};

LossState& loss_state(AppState& s);
/// The loss record the page shows at the Selection's step, or nullptr.
const schema::LossRecord* shown_loss(AppState& s, LossState& l);

void draw_loss_samples(AppState& s, LossState& l, const schema::LossRecord& rec, const LossBatch& b);
void draw_loss_tokens(AppState& s, LossState& l, const LossBatch& b);
void draw_loss_confusion(AppState& s, LossState& l);

}  // namespace tvis::viewer
