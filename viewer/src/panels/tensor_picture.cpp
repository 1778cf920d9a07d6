#include "tensor_picture.h"

#include <imgui.h>

#include <string>
#include <vector>

#include "panel_labels.h"
#include "picture.h"

namespace tvis::viewer {

void draw_tensor_picture(RunModel& model, uint64_t run, int64_t id, int step, float side, int row,
                         PictureTextures* textures, widgets::TextureUploader* uploader) {
  if (id < 0) {
    ImGui::TextDisabled("(no value)");
    return;
  }
  bool done = true;
  TensorRef ref = model.tensors().by_id(model, static_cast<uint64_t>(id), step, &done);
  if (!ref) {
    ImGui::TextDisabled(done ? "(not recorded)" : "loading ...");
    return;
  }
  std::vector<int64_t> shape = ref.shape();
  if (row >= 0 && !shape.empty()) shape.erase(shape.begin());
  const PictureLayout pl = picture_layout(shape);
  if (!pl.ok || ref.kept().kept == ValuesKept::None) {
    ImGui::TextDisabled("%s %s", ref.shape_label().c_str(), ref.dtype_label());
    return;
  }
  const std::shared_ptr<const DecodedTensor> decoded = model.values().get(ref);  // the model's one cache
  if (decoded->loading) {
    ImGui::Dummy(ImVec2(side, side));
    return;
  }
  const TensorValues* v = &decoded->values;
  const std::string& error = decoded->error;
  const size_t per = static_cast<size_t>(pl.width) * pl.height * pl.channels;
  const size_t offset = row >= 0 ? per * static_cast<size_t>(row) : 0;
  if (!error.empty() || v->values.size() < offset + per) {
    ImGui::TextDisabled(error.empty() ? "(row not kept)" : "%s", error.c_str());
    return;
  }
  const ImVec2 size = fit_picture(static_cast<float>(pl.width), static_cast<float>(pl.height), ImVec2(side, side));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(size);
  draw_picture(ImGui::GetWindowDrawList(), p0, ImVec2(p0.x + size.x, p0.y + size.y), v->values.data() + offset, per,
               pl, ref.dtype() == DType::UInt8,
               TextureTarget{textures, uploader,
                             "run" + std::to_string(run) + "|tensor" + std::to_string(id) + "|row" + std::to_string(row)},
               48);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s %s", ref.shape_label().c_str(), ref.dtype_label());
}

}  // namespace tvis::viewer
