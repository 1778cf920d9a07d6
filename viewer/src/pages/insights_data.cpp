// insights_data.cpp: what the insight sub-pages read, decoded once: tensor
// values by id (a bounded cache: cleared past kMaxDecoded entries, so a long
// run never holds every map at once), the followed sample's picture, and the
// map-over-picture drawing they share.
#include <imgui.h>

#include <algorithm>
#include <climits>

#include "../panels/layer_view.h"
#include "../panels/picture.h"
#include "../theme.h"
#include "insights_state.h"
#include "tvis/widgets/colormap.h"

namespace tvis::viewer {

namespace {

constexpr size_t kMaxDecoded = 512;

// The picture's tensor: the last pipeline stage that was a PIL image, else
// the sample as batched (what Replay's On image shows).
std::optional<uint64_t> picture_tensor(AppState& s, int step, int sample, bool* complete) {
  std::optional<uint64_t> out;
  *complete = s.model.samples().for_step(step, [&](const schema::Sample* x) {
    if (x->id() != sample || x->step() != step || out) return;
    if (x->transforms())
      for (const auto* t : *x->transforms())
        if (t->output_kind() == schema::ValueKind::PILImage && t->output() >= 0) out = static_cast<uint64_t>(t->output());
    if (!out && x->input() >= 0) out = static_cast<uint64_t>(x->input());
  });
  return out;
}

}  // namespace

const Decoded& decoded_tensor(AppState& s, InsightsState& st, uint64_t id, int step) {
  auto it = st.decoded.find(id);
  if (it != st.decoded.end() && !it->second.loading) return it->second;
  if (it == st.decoded.end()) {
    if (st.decoded.size() >= kMaxDecoded) st.decoded.clear();
    it = st.decoded.emplace(id, Decoded{}).first;
  }
  Decoded& d = it->second;
  bool complete = true;
  TensorRef ref = s.model.tensors().by_id(s.model, id, step, &complete);
  if (!ref) {
    if (complete) {
      d.loading = false;
      d.error = "tensor " + std::to_string(id) + " is not in the run";
    }
    return d;
  }
  if (s.model.tensors().read_values(s.model, *ref.rec, &d.values, &d.error) == ChunkRead::Loading) return d;
  d.loading = false;
  d.bytes = ref.rec->dtype() == schema::DType::UInt8;
  d.id = id;
  return d;
}

const Decoded* sample_picture(AppState& s, InsightsState& st, int step, int sample) {
  if (sample < 0) return nullptr;
  bool complete = true;
  const std::optional<uint64_t> id = picture_tensor(s, step, sample, &complete);
  if (!id) return nullptr;
  const Decoded& d = decoded_tensor(s, st, *id, step);
  if (d.loading || !d.error.empty() || !picture_layout(d.values.shape).ok) return nullptr;
  return &d;
}

int insight_sample(AppState& s, InsightsState& st, const std::vector<int>& have) {
  const int followed = s.followed_sample();
  if (followed >= 0) return followed;
  if (have.empty()) return st.sample;
  if (std::find(have.begin(), have.end(), st.sample) == have.end()) st.sample = have.front();
  return st.sample;
}

int insight_row(AppState& s, int step, int sample) {
  if (s.model.samples().followed().empty()) return sample;  // ids are batch positions then
  return sample_row(s.model, step, sample);
}

void draw_map_over(ImDrawList* dl, ImVec2 min, ImVec2 max, const std::vector<double>& map, int rows, int cols,
                   float opacity, int colormap, const TextureTarget& target) {
  if (rows <= 0 || cols <= 0 || map.size() < static_cast<size_t>(rows) * cols) return;
  double hi = 0;
  for (double v : map) hi = std::max(hi, v);
  const widgets::ColorRange range{0, hi > 0 ? hi : 1};
  const auto cmap = colormap == 1 ? widgets::Colormap::Diverging : widgets::Colormap::Sequential;
  const ImU32 alpha = static_cast<ImU32>(std::clamp(opacity, 0.0f, 1.0f) * 255) << 24;
  auto color = [&](int r, int c) {
    return widgets::colormap_color(cmap, range, map[static_cast<size_t>(r) * cols + c]) & 0x00FFFFFF;
  };
  if (target.textures && target.uploader) {
    const std::string key = target.key + "|map|" + std::to_string(colormap);
    ImTextureID id = target.textures->get(target.uploader, key, [&](std::vector<std::uint8_t>* rgba, int* w, int* h) {
      *w = cols;
      *h = rows;
      rgba->assign(static_cast<size_t>(rows) * cols * 4, 0);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) fill_texels(rgba, cols, c, r, c + 1, r + 1, color(r, c) | 0xFF000000u);
      return true;
    });
    if (id) {
      dl->AddImage(id, min, max, ImVec2(0, 0), ImVec2(1, 1), 0x00FFFFFF | alpha);  // the tint sets the opacity
      return;
    }
  }
  const float cw = (max.x - min.x) / cols, ch = (max.y - min.y) / rows;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      dl->AddRectFilled(ImVec2(min.x + c * cw, min.y + r * ch), ImVec2(min.x + (c + 1) * cw, min.y + (r + 1) * ch),
                        color(r, c) | alpha);
}

TextureTarget texture_target(AppState& s, InsightsState& st, const std::string& key) {
  return TextureTarget{&st.textures, s.options.texture_uploader, key};
}

void insight_hint(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace tvis::viewer
