// replay_data_view.cpp: Replay's data phase view, drawn from replay_data.h's
// values: the batch as loaded (an image grid, token strips or a table of
// values, the followed row marked) and the followed sample through each
// transform of its dataset.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>

#include "../panels/tensor_picture.h"
#include "../theme.h"
#include "replay_data.h"
#include "replay_state.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

namespace {

// The kept rows as pictures, the followed one framed.
void draw_batch_images(AppState& s, ReplayState& r, const BatchShown& b, int step) {
  const float side = ImGui::GetFontSize() * 3.6f;
  const int per_line = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / (side + 6)));
  for (int i = 0; i < b.rows_drawn; ++i) {
    if (i % per_line) ImGui::SameLine();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    draw_tensor_picture(s.model, s.selection.run, static_cast<int64_t>(b.tensor.id()), step, side, i, &r.pictures,
                        s.options.texture_uploader);
    if (i == b.followed_row)
      ImGui::GetWindowDrawList()->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p0.x + side + 2, p0.y + side + 2),
                                          colors::kAccent, 0, 0, 2.0f);
  }
  if (b.rows_kept < b.shape[0])
    ImGui::TextDisabled("first %d of %" PRId64 " rows kept", static_cast<int>(b.rows_kept), b.shape[0]);
}

// The kept rows' leading values, one line per row: token strips or a table.
void draw_batch_values(AppState& s, const BatchShown& b) {
  const std::shared_ptr<const DecodedTensor> decoded = s.model.values().get(b.tensor);
  if (decoded->loading) {
    ImGui::TextDisabled("loading ...");
    return;
  }
  const TensorValues* v = &decoded->values;
  const size_t per = b.row_size;
  ImGui::TextDisabled(b.integer ? "token ids, one row per sample" : "values, one row per sample");
  for (int i = 0; i < b.rows_drawn && static_cast<size_t>(i + 1) * per <= v->values.size(); ++i) {
    std::string line = std::to_string(i) + (i == b.followed_row ? " * " : "   ");
    for (size_t k = 0; k < std::min<size_t>(per, 48); ++k) {
      line += widgets::format_number(v->values[i * per + k], 3);
      line += ' ';
    }
    if (per > 48) line += "...";
    ImGui::TextUnformatted(line.c_str());
  }
}

// The batch: the holder's first part, drawn row by row.
void draw_batch(AppState& s, ReplayState& r, const BatchShown& b, int step) {
  switch (b.state) {
    case BatchShown::State::Loading: ImGui::TextDisabled("loading the batch ..."); return;
    case BatchShown::State::NoFetch:
      replay_say(r, "No DataLoader fetch in this step: the script built its batches itself.");
      return;
    case BatchShown::State::NotRecorded: ImGui::TextDisabled("The batch's tensors were not recorded."); return;
    case BatchShown::State::Scalar: ImGui::Text("batch: a scalar %s (no rows)", b.tensor.dtype_label()); return;
    case BatchShown::State::Shown: break;
  }
  ImGui::Text("batch %s %s", b.tensor.shape_label().c_str(), b.tensor.dtype_label());
  ImGui::SameLine();
  ImGui::TextDisabled("as %s received it", b.from_loader ? "the DataLoader yielded" : "the model");
  if (b.parts > 1) {
    ImGui::SameLine();
    ImGui::TextDisabled("(+ %zu more part%s: targets, ...)", b.parts - 1, b.parts > 2 ? "s" : "");
  }
  if (b.rows_kept == 0) replay_say(r, "Only the batch's statistics were kept (beyond --max-elems).");
  else if (b.drawn_as == BatchShown::DrawnAs::Images) draw_batch_images(s, r, b, step);
  else draw_batch_values(s, b);
}

// A sample that is not a picture (a row of token ids, a feature vector):
// its shape and leading values on one line. False when it is a picture or
// its values are not at hand (the caller draws it as a picture or a shape).
bool draw_value_line(AppState& s, int64_t id, int step) {
  if (id < 0) return false;
  bool done = true;
  const TensorRef ref = s.model.tensors().by_id(s.model, static_cast<uint64_t>(id), step, &done);
  if (!ref || ref.rank() > 1) return false;
  const std::shared_ptr<const DecodedTensor> decoded = s.model.values().get(ref);
  if (decoded->loading) return false;
  const TensorValues* v = &decoded->values;
  std::string line = ref.shape_label() + " " + ref.dtype_label() + ":  ";
  for (size_t k = 0; k < std::min<size_t>(v->values.size(), 48); ++k) line += widgets::format_number(v->values[k], 3) + " ";
  if (v->values.size() > 48) line += "...";
  ImGui::TextUnformatted(line.c_str());
  return true;
}

// One stage: its class above its output's picture, its arguments below.
void draw_stage(AppState& s, ReplayState& r, const StageShown& st, int step, float side) {
  ImGui::BeginGroup();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(st.current ? colors::kAccent : 0xFFFFFFFFu), "%s",
                     st.class_name.c_str());
  draw_tensor_picture(s.model, s.selection.run, st.output, step, side, -1, &r.pictures, s.options.texture_uploader);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + side);
  const size_t open = st.name.find('(');
  if (open != std::string::npos) ImGui::TextDisabled("%s", st.name.substr(open).c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", st.name.c_str());
}

void draw_followed_sample(AppState& s, ReplayState& r, const SampleShown& smp, int step) {
  if (smp.state == SampleShown::State::NotFollowed) {
    replay_say(r, "The run follows no samples (no torch DataLoader, or --samples 0).");
    return;
  }
  if (smp.state == SampleShown::State::Missing) {
    ImGui::TextDisabled("Sample %d is not in this step's batch (or its record is loading).", smp.id);
    return;
  }
  const float em = ImGui::GetFontSize();
  ImGui::Text("sample %d", smp.id);
  ImGui::SameLine();
  ImGui::TextDisabled("dataset index %" PRId64 ", batch row %d%s%s", smp.dataset_index, smp.batch_row,
                      smp.label.empty() ? "" : ", label ", smp.label.c_str());
  if (smp.stages.empty()) {
    ImGui::TextDisabled("No transforms recorded for it (the dataset returns it as stored).");
    if (!draw_value_line(s, smp.item, step))
      draw_tensor_picture(s.model, s.selection.run, smp.item, step, em * 8, -1, &r.pictures, s.options.texture_uploader);
    return;
  }
  const float side = em * 6.5f;
  // Stage 0: the input of the first transform, then each transform's output.
  ImGui::BeginGroup();
  ImGui::TextDisabled("item");
  draw_tensor_picture(s.model, s.selection.run, smp.item, step, side, -1, &r.pictures, s.options.texture_uploader);
  ImGui::EndGroup();
  for (const StageShown& st : smp.stages) {
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < side) ImGui::NewLine();
    draw_stage(s, r, st, step, side);
  }
}

}  // namespace

void draw_replay_data_view(AppState& s, ReplayState& r, const Stop& here) {
  const DataShown d = data_shown(s, r.step, here);
  if (ImGui::CollapsingHeader("The batch as loaded", ImGuiTreeNodeFlags_DefaultOpen)) draw_batch(s, r, d.batch, r.step);
  if (ImGui::CollapsingHeader("The followed sample through its transforms", ImGuiTreeNodeFlags_DefaultOpen))
    draw_followed_sample(s, r, d.sample, r.step);
}

}  // namespace tvis::viewer
