#include "tensor_picture.h"

#include <imgui.h>

#include <map>
#include <string>
#include <vector>

#include "panel_labels.h"
#include "picture.h"

namespace tvis::viewer {

namespace {

struct ValuesCache {
  uint64_t run = UINT64_MAX;
  std::map<uint64_t, TensorValues> values;
  std::map<uint64_t, std::string> errors;
};

ValuesCache& values_cache(uint64_t run) {
  static ValuesCache cache;
  if (cache.run != run) cache = ValuesCache{run, {}, {}};
  return cache;
}

}  // namespace

const TensorValues* cached_tensor_values(RunModel& model, uint64_t run, const schema::TensorRecord& rec,
                                         std::string* error) {
  ValuesCache& c = values_cache(run);
  if (auto it = c.values.find(rec.id()); it != c.values.end()) {
    *error = c.errors[rec.id()];
    return &it->second;
  }
  TensorValues v;
  if (model.tensors().read_values(model, rec, &v, error) == ChunkRead::Loading) return nullptr;
  if (c.values.size() > 64) c.values.clear(), c.errors.clear();
  c.errors[rec.id()] = *error;
  return &(c.values[rec.id()] = std::move(v));
}

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
  std::vector<int64_t> shape(ref.rec->shape()->begin(), ref.rec->shape()->end());
  if (row >= 0 && !shape.empty()) shape.erase(shape.begin());
  const PictureLayout pl = picture_layout(shape);
  if (!pl.ok || ref.rec->kept() == schema::ValuesKept::None) {
    ImGui::TextDisabled("%s %s", shape_label(ref.rec->shape()).c_str(), dtype_label(ref.rec->dtype()));
    return;
  }
  std::string error;
  const TensorValues* v = cached_tensor_values(model, run, *ref.rec, &error);
  if (!v) {
    ImGui::Dummy(ImVec2(side, side));
    return;
  }
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
               pl, ref.rec->dtype() == schema::DType::UInt8,
               TextureTarget{textures, uploader,
                             "run" + std::to_string(run) + "|tensor" + std::to_string(id) + "|row" + std::to_string(row)},
               48);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s %s", shape_label(ref.rec->shape()).c_str(), dtype_label(ref.rec->dtype()));
}

}  // namespace tvis::viewer
