// The Compare page's images: run A's values at the position, run B's, and
// |A - B|, side by side. A and B share one symmetric colour range (equal
// values look equal); the difference has its own, from 0 (black: no
// difference) to its largest finite value.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "../theme.h"
#include "compare_state.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

std::string position_key(const ComparePosition& p) {
  return std::to_string(p.step) + "/" + compare_show_name(p.show) + "/" + (shows_param(p.show) ? p.param : p.module);
}

std::string difference_words(const ComparedValues& v) {
  const ValuesDifference& d = v.difference;
  if (!d.comparable) return "cannot compare: " + d.why;
  if (d.differing == 0) return "identical: |A - B| = 0 on all " + std::to_string(d.elements) + " elements";
  return "max |A - B| = " + widgets::format_exact(d.max_abs) + " at element " + std::to_string(d.at) + "; " +
         std::to_string(d.differing) + " of " + std::to_string(d.elements) + " elements differ";
}

namespace {

WeightImage image_of(const std::vector<double>& values, const std::vector<int64_t>& shape) {
  TensorValues tv;
  tv.values = values;
  tv.shape = shape;
  return reduce_image(weight_image(tv), kShownSide);
}

void make_images(CompareImages& im) {
  const ComparedValues& v = im.values;
  im.a = im.b = im.diff = WeightImage();
  if (!v.error.empty() || !v.difference.comparable) return;
  im.a = image_of(v.a->values.values, v.shape);
  im.b = image_of(v.b->values.values, v.shape);
  im.diff = image_of(v.abs_difference, v.shape);
  std::vector<double> both = v.a->values.values;
  both.insert(both.end(), v.b->values.values.begin(), v.b->values.values.end());
  im.range = widgets::color_range_of(widgets::ValueSpan(both), true);
  double top = 0;
  for (double x : v.abs_difference)
    if (std::isfinite(x)) top = std::max(top, x);
  im.diff_range.lo = 0;
  im.diff_range.hi = top > 0 ? top : 1;
  im.version += 1;
}

void draw_one(AppState& s, const char* id, const char* title, const WeightImage& img, const widgets::ColorRange& range,
              widgets::Colormap map, widgets::HeatmapTexture& tex, uint64_t version, float height) {
  ImGui::TextUnformatted(title);
  if (img.rows <= 0 || img.cols <= 0) return;
  widgets::HeatmapOptions o;
  // Square cells, except for a thin strip (a few rows of many features):
  // stretched to a band of readable height.
  const bool thin = img.cols > 6 * img.rows || img.rows > 6 * img.cols;
  o.keep_aspect = !thin;
  o.size = ImVec2(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 0.5f,
                  thin ? std::min(height, ImGui::GetFontSize() * 10) : height);
  o.colormap = map;
  o.has_range = true;
  o.range = range;
  o.uploader = s.options.texture_uploader;
  o.texture = &tex;
  o.data_version = version;
  widgets::heatmap(id, widgets::ValueSpan(img.values), img.rows, img.cols, o);
}

std::string shape_words(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace

const CompareImages* compare_images(AppState& s, CompareState& c) {
  CompareImages& im = c.images;
  const std::string key = position_key(c.position);
  if (im.key == key && !im.values.loading) return &im;
  ComparedValues v = compare_values(s.model, s.compare, c.position);
  if (v.loading) return nullptr;
  im.key = key;
  im.values = std::move(v);
  make_images(im);
  return &im;
}

void draw_compare_images(AppState& s, CompareState& c) {
  const CompareImages* im = compare_images(s, c);
  if (!im) {
    ImGui::TextDisabled("reading both runs' values at this position ...");
    return;
  }
  const ComparedValues& v = im->values;
  if (!v.error.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", v.error.c_str());
    return;
  }
  const bool same = v.difference.comparable && v.difference.differing == 0;
  ImGui::TextDisabled("shape %s%s", shape_words(v.shape).c_str(), v.a->values.partial ? " (leading rows kept)" : "");
  ImGui::SameLine();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(same ? colors::kAccent : colors::kWarning), "%s",
                     difference_words(v).c_str());
  // The images fill the space left (a title line above each).
  const float height = std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing());
  if (!ImGui::BeginTable("compare_images", 3, ImGuiTableFlags_SizingStretchSame)) return;
  ImGui::TableNextColumn();
  draw_one(s, "##cmp_a", "A (shown run)", im->a, im->range, widgets::Colormap::Diverging,
           c.images.tex_a, im->version, height);
  ImGui::TableNextColumn();
  draw_one(s, "##cmp_b", "B (compared run)", im->b, im->range, widgets::Colormap::Diverging,
           c.images.tex_b, im->version, height);
  ImGui::TableNextColumn();
  draw_one(s, "##cmp_d", same ? "|A - B| (0 everywhere)" : "|A - B|", im->diff, im->diff_range, widgets::Colormap::Sequential,
           c.images.tex_diff, im->version, height);
  ImGui::EndTable();
}

}  // namespace tvis::viewer
