// loss_state.h: what the Loss page remembers between frames (its PageState,
// replaced when another run opens). The page's files: loss_page.cpp (layout,
// the curve and the call, view and commands), loss_samples.cpp (the
// worst-first list and a language model's tokens), loss_confusion.cpp,
// loss_class_names.cpp (the classes' names where the samples carry them),
// loss_token_names.cpp (a language model's token texts where a vocabulary was found),
// loss_grad_clip.cpp (what clip_grad_norm_ measured and did).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "../app_state.h"
#include "../panels/picture_textures.h"
#include "tvis/viewer_model/loss_analysis.h"
#include "tvis/viewer_model/loss_entry.h"
#include "tvis/viewer_model/step_stops.h"
#include "tvis/widgets/heatmap.h"

namespace tvis::viewer {

struct LossState : PageState {
  PictureTextures pictures;     // the samples' pictures as drawn (tensor_picture.h)
  int64_t hovered_row = -1;     // the sample row under the mouse last frame (-1: none)
  const char* hovered_picture = "none";  // its picture in the tooltip: "drawn", "loading" or "none"
  int backward = 0;             // which of the step's loss records is shown (0: the first)
  int token_row = 0;            // the language model's sequence shown
  bool normalised = false;      // confusion matrix: row-normalised instead of counts
  widgets::HeatmapTexture confusion_texture;
  int64_t unfollowed_row = -1;  // the last clicked row the recorder did not follow (-1: none)
  int unfollowed_step = -1;     // ... of the batch of this step
  std::string unfollowed_why;   // why it cannot be followed, said in place
  std::map<int64_t, std::string> recorded_names;  // class_names_recorded(), once complete
  bool recorded_names_complete = false;
  std::map<int64_t, std::string> token_names;     // token_names(), once complete
  bool token_names_complete = false;
};

/// Class names where the followed samples of `step` carry them
/// (label_index -> label); loss_class_names.cpp.
std::map<int64_t, std::string> class_names(AppState& s, int step);
/// The same over every step with a loss record (the confusion matrix's
/// batches: class_names_of_losses), kept in `l` once every Samples chunk of
/// those steps was read.
const std::map<int64_t, std::string>& class_names_recorded(AppState& s, LossState& l);
/// "3 cat" where class 3 has a name, else "3".
std::string class_label(const std::map<int64_t, std::string>& names, int64_t c);
/// Token id -> its text where the recorder labelled it (loss_token_names.cpp);
/// kept in `l` once every insight record is indexed.
const std::map<int64_t, std::string>& token_names(AppState& s, LossState& l);
/// The token's text with whitespace made visible ("_", "\n"), else its id.
std::string token_text(const std::map<int64_t, std::string>& names, int64_t id);

LossState& loss_state(AppState& s);
/// The loss record the page shows at the Selection's step (Losses::shown
/// with l.backward), or nullopt.
std::optional<LossEntry> shown_loss(AppState& s, LossState& l);

/// A click on sample row `row` of `b`: a followed row opens Replay on its
/// sample; any other row sets l.unfollowed_row / unfollowed_why (which flag
/// would follow it). False when the batch has no such row.
bool click_loss_row(AppState& s, LossState& l, const LossEntry& loss, const LossBatch& b, int64_t row);

void draw_loss_samples(AppState& s, LossState& l, const LossEntry& loss, const LossBatch& b);
void draw_loss_tokens(AppState& s, LossState& l, const LossBatch& b);
void draw_loss_confusion(AppState& s, LossState& l);
/// The gradient clipping panel (loss_grad_clip.cpp): nothing when the run
/// recorded no clip_grad_norm_ call; its state() view.grad_clip.
void draw_loss_grad_clip(AppState& s);
nlohmann::json loss_grad_clip_view(AppState& s);

}  // namespace tvis::viewer
