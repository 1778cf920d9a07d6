// Weights: did my weights change the way they should. One parameter at a
// time (conv kernels as a filter x input-channel grid of small images,
// matrices as heatmaps, vectors as bars; stats and histogram beside), as its
// weight, gradient or update Δw = p_after − p_before, at any recorded step;
// the figures users look for (‖g‖, ‖Δw‖/‖w‖, the learning rate and optimizer
// state of the step). "All layers" (weights_all_layers.cpp) shows every
// parameter as a thumbnail. Values are read only for what is drawn.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../link.h"
#include "../page.h"
#include "../theme.h"
#include "tvis/viewer_model/tensor_stats.h"
#include "tvis/viewer_model/param_update.h"
#include "tvis/widgets/bar_chart.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/histogram.h"
#include "weights_state.h"

namespace tvis::viewer {

using nlohmann::json;

TensorRef tensor_at(AppState& s, int64_t id, int step, bool* loading) {
  if (id < 0) return {};
  bool done = true;
  TensorRef r = s.model.tensors().by_id(s.model, static_cast<uint64_t>(id), step, &done);
  if (!r && !done) *loading = true;
  return r;
}

extern const PageSpec kWeightsPage;

WeightsState& weights_state(AppState& s) { return page_state<WeightsState>(s, kWeightsPage); }

namespace {

std::unique_ptr<PageState> make_weights_state(AppState&) { return std::make_unique<WeightsState>(); }

// A rank switch keeps the parameter shown, what of it, and the tab.
void weights_link_position(AppState& s, json& link) {
  const WeightsState* w = existing_page_state<WeightsState>(s, kWeightsPage);
  if (!w) return;
  if (!w->param.empty()) link["param"] = w->param;
  link["show"] = show_name(w->show);
  if (w->all_layers) link["weights_tab"] = "All layers";
}

void muted(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

std::string steps_label(const std::vector<int>& steps) {
  std::string out;
  for (size_t i = 0; i < steps.size() && i < 12; ++i) out += (i ? ", " : "") + std::to_string(steps[i]);
  if (steps.size() > 12) out += ", ...";
  return out;
}

// The parameter the page shows: the chosen one, else the first known.
const std::string& shown_param(AppState& s, WeightsState& w) {
  if (w.param.empty()) {
    const auto& names = s.model.optimizer_steps().names();
    if (!names.empty()) w.param = names.front();
  }
  return w.param;
}

// ‖Δw‖/‖w‖ of `p` at `step` from the recorded statistics; NaN when unknown.
double update_ratio(AppState& s, const ParamTensors& p, int step, bool* loading) {
  const TensorRef wr = tensor_at(s, p.weight, step, loading);
  const TensorRef ur = tensor_at(s, p.update, step, loading);
  if (!wr || !ur) return NAN;
  const std::optional<TensorStats> w_stats = wr.stats(), u_stats = ur.stats();
  if (!w_stats || !u_stats || !(w_stats->l2 > 0)) return NAN;
  return u_stats->l2 / w_stats->l2;
}

void figure(const char* label, const std::string& value, const char* help) {
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", label);
  if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(value.c_str());
}

std::string norm_of(const TensorRef& r) {
  const std::optional<TensorStats> st = r ? r.stats() : std::nullopt;
  return st ? widgets::format_exact(st->l2) : std::string("—");
}

void draw_stats_and_histogram(const std::optional<TensorStats>& st) {
  if (!st) return;
  if (ImGui::BeginTable("wstats", 4, ImGuiTableFlags_SizingStretchProp)) {
    figure("min", widgets::format_exact(st->min), nullptr);
    figure("max", widgets::format_exact(st->max), nullptr);
    figure("mean", widgets::format_exact(st->mean), nullptr);
    figure("std", widgets::format_exact(st->stddev), nullptr);
    figure("mean|x|", widgets::format_exact(st->mean_abs), nullptr);
    figure("count", std::to_string(st->count), nullptr);
    if (st->nan_count || st->inf_count)
      figure("nan/inf", std::to_string(st->nan_count) + " / " + std::to_string(st->inf_count), nullptr);
    ImGui::EndTable();
  }
  if (st->has_histogram()) {
    const std::vector<double>& counts = st->histogram;
    widgets::HistogramMark marks[2] = {{st->mean, "mean", 0}, {0.0, "0", IM_COL32(150, 150, 150, 255)}};
    widgets::HistogramOptions o;
    o.size = ImVec2(0, ImGui::GetFontSize() * 6);
    o.marks = marks;
    o.mark_count = 2;
    widgets::histogram("##whist", widgets::ValueSpan(counts), st->hist_lo, st->hist_hi, o);
  }
}

// What a tensor past --max-elems kept, said where its values are drawn
// (and state()'s view.kept_note); "" when every value was kept.
std::string kept_note(const KeptValues& k) {
  if (k.kept != ValuesKept::LeadingRows) return "";
  char text[200];
  std::snprintf(text, sizeof text,
                "Beyond --max-elems: the leading %" PRId64 " of %" PRId64
                " rows were kept (drawn); the statistics are over the whole tensor.",
                k.kept_rows, k.rows);
  return text;
}

// The shown tensor's values as an image: bars for vectors, else a heatmap
// of the reduced image (conv kernels with their tile grid); the tooltip
// names the exact cell of the full image (filter, channel and kernel
// position for convolutions).
void draw_values(AppState& s, WeightsState& w, const ShownImage& si, const std::string& note, float height) {
  if (!si.error.empty()) {
    muted(si.error);
    return;
  }
  const WeightImage& img = si.full;
  if (img.rows == 0 || img.cols == 0) {
    muted("No values to draw (an empty tensor).");
    return;
  }
  if (si.partial)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", note.c_str());
  if (img.vector && img.cols <= 4096) {
    widgets::BarChartOptions o;
    o.size = ImVec2(0, height);
    widgets::bar_chart("##wbars", widgets::ValueSpan(img.values), nullptr, o);
    return;
  }
  widgets::HeatmapOptions o;
  o.size = ImVec2(0, height);
  o.colormap = widgets::Colormap::Diverging;
  o.has_range = true;
  o.range = si.range;
  o.uploader = s.options.texture_uploader;
  o.texture = &w.texture;
  o.data_version = si.version;
  o.show_tooltip = false;
  const WeightImage& d = si.shown;
  const widgets::HeatmapResult r = widgets::heatmap("##wheat", widgets::ValueSpan(d.values), d.rows, d.cols, o);
  const float cell_w = (r.image_max.x - r.image_min.x) / static_cast<float>(img.cols);
  const float cell_h = (r.image_max.y - r.image_min.y) / static_cast<float>(img.rows);
  if (img.tile_rows > 0) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 grid = IM_COL32(140, 140, 150, 110);  // between tiles, visible on the dark centre of the colormap
    if (cell_w * static_cast<float>(img.tile_cols) >= 12)
      for (int c = img.tile_cols; c < img.cols; c += img.tile_cols) {
        const float x = r.image_min.x + cell_w * static_cast<float>(c);
        dl->AddLine(ImVec2(x, r.image_min.y), ImVec2(x, r.image_max.y), grid, 1.0f);
      }
    if (cell_h * static_cast<float>(img.tile_rows) >= 12)
      for (int c = img.tile_rows; c < img.rows; c += img.tile_rows) {
        const float y = r.image_min.y + cell_h * static_cast<float>(c);
        dl->AddLine(ImVec2(r.image_min.x, y), ImVec2(r.image_max.x, y), grid, 1.0f);
      }
  }
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (r.hovered) {
    const int row = std::clamp(static_cast<int>((m.y - r.image_min.y) / cell_h), 0, img.rows - 1);
    const int col = std::clamp(static_cast<int>((m.x - r.image_min.x) / cell_w), 0, img.cols - 1);
    const double v = img.values[static_cast<size_t>(row) * static_cast<size_t>(img.cols) + static_cast<size_t>(col)];
    if (img.tile_rows > 0)
      ImGui::SetTooltip("filter %d, input channel %d, kernel (%d, %d) = %s", row / img.tile_rows, col / img.tile_cols,
                        row % img.tile_rows, col % img.tile_cols, widgets::format_exact(v).c_str());
    else
      ImGui::SetTooltip("row %d, col %d = %s", row, col, widgets::format_exact(v).c_str());
  }
}

// The decoded image of tensor `id` (what it kept: `kept`) under `key`, or
// nullptr while its values load. With `update_of`, `id` is that parameter's
// update at `step`: its values
// may be after − before (update_values). Values come from the model's one
// cache; the page keeps only the images it draws.
const ShownImage* shown_image(AppState& s, WeightsState& w, const std::string& key, uint64_t id, ValuesKept kept,
                              int step, const ParamTensors* update_of = nullptr) {
  auto it = w.images.find(key);
  if (it != w.images.end()) {
    it->second.used = w.frames;
    return &it->second;
  }
  const std::shared_ptr<const DecodedTensor> decoded =
      update_of ? update_values(s.model, *update_of, step) : s.model.values().get(id, step);
  if (decoded->loading) return nullptr;
  const std::string& error = decoded->error;
  const TensorValues& tv = decoded->values;
  while (w.images.size() >= kShownCached) {  // drop the least recently drawn
    auto oldest = w.images.begin();
    for (auto i = w.images.begin(); i != w.images.end(); ++i)
      if (i->second.used < oldest->second.used) oldest = i;
    w.images.erase(oldest);
  }
  ShownImage& si = w.images[key];
  si.used = w.frames;
  si.version = ++w.versions;
  if (!error.empty()) {
    si.error = kept == ValuesKept::None ? "Beyond --max-elems with no rows kept: statistics only (" +
                                                            error + ")."
                                                      : error;
    return &si;
  }
  si.partial = tv.partial;
  si.full = weight_image(tv);
  si.shown = reduce_image(si.full, kShownSide);
  si.range = widgets::color_range_of(widgets::ValueSpan(si.full.values), true);
  return &si;
}

/// Mixed precision: a step GradScaler skipped, and the scale the backward's
/// gradients carried (the .grad shown here is unscaled: read in optimizer.step()).
void draw_scaler_note(const std::optional<OptimizerStepInfo>& orec) {
  if (!orec) return;
  if (orec->skipped)
    ImGui::TextColored(ImVec4(0.95f, 0.55f, 0.25f, 1), "GradScaler skipped this step: a gradient was inf or NaN, "
                       "so no update ran (scale %s).", widgets::format_exact(orec->grad_scale).c_str());
  else if (orec->grad_scale > 0)
    ImGui::TextDisabled("GradScaler: the backward's gradients carried scale %s; .grad here is unscaled.",
                        widgets::format_exact(orec->grad_scale).c_str());
}

void draw_one_param(AppState& s, WeightsState& w) {
  OptimizerSteps& opt = s.model.optimizer_steps();
  const int step = s.selection.step;
  const std::string& name = shown_param(s, w);
  if (name.empty()) {
    muted(opt.ready() ? "No parameter is named at any recorded step." : "Reading the optimizer steps ...");
    return;
  }
  const std::optional<ParamTensors> p = opt.param_tensors(step, name);
  if (!p) {
    const std::vector<int> steps = opt.steps_of(name);
    if (steps.empty())
      muted("No parameter named '" + name + "' was recorded" + (opt.ready() ? "." : " (still reading)."));
    else
      muted("'" + name + "' is not updated at step " + std::to_string(step) +
            (opt.at_step(step) ? " (this step's optimizer updates other parameters)" : " (no update recorded there)") +
            ". It is updated at step" + (steps.size() > 1 ? "s " : " ") + steps_label(steps) + ".");
    if (!steps.empty()) {
      auto next = std::lower_bound(steps.begin(), steps.end(), step);
      const int target = next == steps.end() ? steps.back() : *next;
      if (ImGui::Button(("Go to step " + std::to_string(target)).c_str())) go_to_step(s, target);
    }
    return;
  }
  bool loading = false;
  const TensorRef wr = tensor_at(s, p->weight, step, &loading);
  const TensorRef gr = tensor_at(s, p->grad, step, &loading);
  const TensorRef ur = tensor_at(s, p->update, step, &loading);
  const TensorRef& shown = w.show == WeightShow::Weight ? wr : w.show == WeightShow::Grad ? gr : ur;
  // Header: what it is, and the figures of the step.
  ImGui::Text("%s", name.c_str());
  ImGui::SameLine();
  if (wr) ImGui::TextDisabled("%s  %s", wr.shape_label().c_str(), wr.dtype_label());
  const std::optional<OptimizerStepInfo> orec = opt.step_info(step, name);
  const std::string oclass = orec && !orec->optimizer_class.empty() ? orec->optimizer_class
                                                                     : "a hand-written update (no torch.optim)";
  ImGui::SameLine();
  ImGui::TextDisabled("  step %d by %s", step, oclass.c_str());
  draw_scaler_note(orec);
  if (ImGui::BeginTable("wfigures", 8, ImGuiTableFlags_SizingStretchProp)) {
    figure("‖w‖", norm_of(wr), "L2 norm of the weight before the step");
    figure("‖g‖", norm_of(gr), "L2 norm of .grad at the step");
    figure("‖Δw‖", norm_of(ur), "L2 norm of p_after − p_before");
    const double ratio = update_ratio(s, *p, step, &loading);
    figure("‖Δw‖/‖w‖", std::isnan(ratio) ? std::string("—") : widgets::format_exact(ratio),
           "update ratio: ~1e-3 is typical; much larger or smaller is worth a look");
    for (const auto& [key, value] : opt.hyper_of(step, name)) {
      if (key != "lr" && key != "momentum" && key != "betas" && key != "weight_decay" && key != "eps") continue;
      figure(key.c_str(), value, nullptr);
    }
    ImGui::EndTable();
  }
  draw_across_ranks(s, w, name, step);
  if (!shown) {
    if (loading) ImGui::TextDisabled("Reading the tensor records of step %d ...", step);
    else if (w.show == WeightShow::Grad)
      muted("No gradient at this step: .grad was None (the parameter took no part in the backward, or is frozen).");
    else if (w.show == WeightShow::Update)
      muted(orec && orec->skipped ? "No update at this step: GradScaler skipped it (its gradients held inf or NaN)."
                                    : "No update Δw was recorded for this parameter at this step.");
    else
      muted("The weight's record is missing at this step.");
    return;
  }
  // Values, decoded once per (param, show, step).
  const std::string key = name + "/" + show_name(w.show) + "/" + std::to_string(step);
  const ShownImage* si =
      shown_image(s, w, key, shown.id(), shown.kept().kept, step, w.show == WeightShow::Update ? &*p : nullptr);
  if (!si) {
    ImGui::TextDisabled("Reading values (chunk %u) ...", shown.data_chunk());
    draw_stats_and_histogram(shown.stats());
    return;
  }
  const float em = ImGui::GetFontSize();
  const float side_w = std::max(em * 18, ImGui::GetContentRegionAvail().x * 0.32f);
  const float h = ImGui::GetContentRegionAvail().y;
  ImGui::BeginChild("wimage", ImVec2(ImGui::GetContentRegionAvail().x - side_w - ImGui::GetStyle().ItemSpacing.x, h));
  draw_values(s, w, *si, kept_note(shown.kept()), std::max(em * 8, ImGui::GetContentRegionAvail().y - em * 2.5f));
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("wside", ImVec2(0, h));
  ImGui::Text("%s", w.show == WeightShow::Weight ? "weight (before the step)"
                    : w.show == WeightShow::Grad ? "gradient (.grad at the step)"
                                                 : "update Δw = p_after − p_before");
  draw_stats_and_histogram(shown.stats());
  ImGui::EndChild();
}

}  // namespace

std::vector<ParamRow> param_rows(AppState& s, WeightsState& w) {
  OptimizerSteps& opt = s.model.optimizer_steps();
  const int step = s.selection.step;
  std::vector<ParamRow> rows;
  bool loading = false;
  for (const std::string& name : opt.names()) {
    ParamRow r;
    r.name = name;
    r.ratio = NAN;
    if (const std::optional<ParamTensors> p = opt.param_tensors(step, name)) {
      r.here = true;
      if (TensorRef wr = tensor_at(s, p->weight, step, &loading)) {
        r.size = static_cast<int64_t>(wr.element_count());
        r.shape = wr.shape_label();
      }
      r.ratio = update_ratio(s, *p, step, &loading);
    }
    rows.push_back(std::move(r));
  }
  if (w.sort == WeightSort::Name)  // "name": alphabetical (the run names them in the model's order)
    std::stable_sort(rows.begin(), rows.end(), [](const ParamRow& a, const ParamRow& b) { return a.name < b.name; });
  else if (w.sort == WeightSort::Size)
    std::stable_sort(rows.begin(), rows.end(), [](const ParamRow& a, const ParamRow& b) { return a.size > b.size; });
  else if (w.sort == WeightSort::UpdateRatio)
    std::stable_sort(rows.begin(), rows.end(), [](const ParamRow& a, const ParamRow& b) {
      return (std::isnan(b.ratio) ? -1 : b.ratio) < (std::isnan(a.ratio) ? -1 : a.ratio);
    });
  return rows;
}

namespace {

// The parameter list (left): every parameter the run names, sorted.
void draw_param_list(AppState& s, WeightsState& w) {
  const std::vector<ParamRow> rows = param_rows(s, w);
  ImGui::TextDisabled("%zu parameters", rows.size());
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(rows.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const ParamRow& r = rows[static_cast<size_t>(i)];
      if (!r.here) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
      if (ImGui::Selectable(r.name.c_str(), r.name == w.param)) w.param = r.name;
      if (!r.here) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) {
        const std::string ratio = std::isnan(r.ratio) ? std::string("—") : widgets::format_exact(r.ratio);
        if (r.here) ImGui::SetTooltip("%s %s\n‖Δw‖/‖w‖ = %s", r.name.c_str(), r.shape.c_str(), ratio.c_str());
        else ImGui::SetTooltip("%s: not updated at this step", r.name.c_str());
      }
    }
}

void draw_controls(AppState& s, WeightsState& w) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Show");
  int show = static_cast<int>(w.show);
  ImGui::SameLine();
  ImGui::RadioButton("weight", &show, 0);
  ImGui::SameLine();
  ImGui::RadioButton("gradient", &show, 1);
  ImGui::SameLine();
  ImGui::RadioButton("update Δw", &show, 2);
  w.show = static_cast<WeightShow>(show);
  const int steps = s.model.step_count();
  if (steps > 1) {
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    ImGui::TextUnformatted("Step");
    ImGui::SameLine();
    int step = s.selection.step;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::SliderInt("##wstep", &step, 0, steps - 1) && step != s.selection.step) go_to_step(s, step);
  }
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::TextUnformatted("Sort");
  ImGui::SameLine();
  int sort = static_cast<int>(w.sort);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  ImGui::Combo("##wsort", &sort, "name\0size\0update ratio\0");
  w.sort = static_cast<WeightSort>(sort);
}

void draw_weights_page(AppState& s) {
  WeightsState& w = weights_state(s);
  ++w.frames;
  OptimizerSteps& opt = s.model.optimizer_steps();
  if (opt.names().empty()) {
    if (!opt.ready()) ImGui::TextDisabled("Reading the optimizer steps ...");
    else
      muted("This run recorded no optimizer step: no torch.optim step() and no hand-written update after a "
            "backward() finished while it was recorded (a run killed in its first step, or a profile capture).");
    return;
  }
  draw_controls(s, w);
  if (!ImGui::BeginTabBar("weights_tabs")) return;
  const bool request = w.all_layers_request;
  const bool want_all = w.all_layers;
  w.all_layers_request = false;
  if (ImGui::BeginTabItem("One parameter", nullptr, request && !want_all ? ImGuiTabItemFlags_SetSelected : 0)) {
    w.all_layers = false;
    const float em = ImGui::GetFontSize();
    const float list_w = std::max(em * 14, ImGui::GetContentRegionAvail().x * 0.2f);
    const float h = ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeight();
    ImGui::BeginChild("wlist", ImVec2(list_w, h), true);
    draw_param_list(s, w);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("wone", ImVec2(0, h), true);
    draw_one_param(s, w);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("All layers", nullptr, request && want_all ? ImGuiTabItemFlags_SetSelected : 0)) {
    w.all_layers = true;
    draw_all_layers(s, w);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

json stats_json(const TensorRef& r) {
  const std::optional<TensorStats> st = r ? r.stats() : std::nullopt;
  if (!st) return nullptr;
  return {{"min", st->min}, {"max", st->max}, {"mean", st->mean}, {"std", st->stddev}, {"l2", st->l2}};
}

// state()["view"] on the Weights page (docs/viewer_test_surface.md).
json weights_view(AppState& s) {
  WeightsState& w = weights_state(s);
  OptimizerSteps& opt = s.model.optimizer_steps();
  const int step = s.selection.step;
  const std::string& name = shown_param(s, w);
  json v = {{"param", name.empty() ? json(nullptr) : json(name)},
            {"show", show_name(w.show)},
            {"step", step},
            {"shape", nullptr},
            {"stats", nullptr},
            {"update_ratio", nullptr},
            {"tab", w.all_layers ? "All layers" : "One parameter"},
            {"params", opt.names()},
            {"present", false}};
  const std::optional<ParamTensors> p = name.empty() ? std::nullopt : opt.param_tensors(step, name);
  if (p) {
    bool loading = false;
    v["present"] = true;
    const TensorRef wr = tensor_at(s, p->weight, step, &loading);
    const TensorRef shown = tensor_at(s, shown_tensor(*p, w.show), step, &loading);
    if (wr) {
      json shape = json::array();
      for (int64_t d : wr.shape()) shape.push_back(d);
      v["shape"] = shape;
    }
    v["stats"] = stats_json(shown);
    const double ratio = update_ratio(s, *p, step, &loading);
    if (std::isfinite(ratio)) v["update_ratio"] = ratio;
    const std::optional<OptimizerStepInfo> orec = opt.step_info(step, name);
    v["optimizer"] = orec ? orec->optimizer_class : "";
    v["skipped"] = orec && orec->skipped;
    v["grad_scale"] = orec ? orec->grad_scale : 0.0;
    json hyper = json::object();
    for (const auto& [key, value] : opt.hyper_of(step, name)) hyper[key] = value;
    v["hyper"] = hyper;
    const std::string key = name + "/" + show_name(w.show) + "/" + std::to_string(step);
    auto img = w.images.find(key);
    v["values"] = img == w.images.end() ? "loading" : img->second.error.empty() ? "drawn" : "unavailable";
    if (shown) {
      const KeptValues kept = shown.kept();
      v["kept"] = kept.kept == ValuesKept::Full          ? "full"
                  : kept.kept == ValuesKept::LeadingRows ? "leading_rows"
                                                         : "none";
      v["kept_rows"] = kept.kept_rows;
      const std::string note = kept_note(kept);
      v["kept_note"] = note.empty() ? json(nullptr) : json(note);
    }
  } else if (!name.empty()) {
    json steps = json::array();
    for (int k : opt.steps_of(name)) steps.push_back(k);
    v["updated_at"] = steps;
  }
  json optimizers = json::array();  // one per record of the step (a GAN's step: two)
  for (const OptimizerStepInfo& r : opt.step_infos(step)) optimizers.push_back(r.optimizer_class);
  v["optimizers"] = optimizers;
  json order = json::array();  // every parameter in All layers' sort order (weights_sort)
  for (const ParamRow& r : param_rows(s, w)) order.push_back(r.name);
  v["thumbnails"] = {{"visible", w.thumbs_visible}, {"drawn", w.thumbs_drawn}, {"order", order}};
  v["across_ranks"] = across_ranks_view(s, w, name, step);
  return v;
}

// {"param": NAME}, {"show": "weight"|"grad"|"update"}, {"weights_tab":
// "One parameter"|"All layers"}, {"weights_sort": "name"|"size"|"update_ratio"},
// {"thumbs_scroll": Y} (All layers' scroll position, pixels).
json weights_command(AppState& s, const json& cmd) {
  WeightsState& w = weights_state(s);
  if (cmd.contains("param")) {
    if (!cmd["param"].is_string()) return false;
    w.param = cmd["param"].get<std::string>();
    return true;
  }
  if (cmd.contains("show")) {
    const std::string v = cmd["show"].is_string() ? cmd["show"].get<std::string>() : "";
    if (v == "weight") w.show = WeightShow::Weight;
    else if (v == "grad") w.show = WeightShow::Grad;
    else if (v == "update") w.show = WeightShow::Update;
    else return false;
    return true;
  }
  if (cmd.contains("weights_tab")) {
    const std::string v = cmd["weights_tab"].is_string() ? cmd["weights_tab"].get<std::string>() : "";
    if (v != "One parameter" && v != "All layers") return false;
    w.all_layers = v == "All layers";
    w.all_layers_request = true;
    return true;
  }
  if (cmd.contains("weights_sort")) {
    const std::string v = cmd["weights_sort"].is_string() ? cmd["weights_sort"].get<std::string>() : "";
    if (v == "name") w.sort = WeightSort::Name;
    else if (v == "size") w.sort = WeightSort::Size;
    else if (v == "update_ratio") w.sort = WeightSort::UpdateRatio;
    else return false;
    return true;
  }
  if (cmd.contains("thumbs_scroll")) {
    if (!cmd["thumbs_scroll"].is_number()) return false;
    w.thumbs_scroll = std::max(0.0f, cmd["thumbs_scroll"].get<float>());
    return true;
  }
  return nullptr;
}

}  // namespace

extern const PageSpec kWeightsPage;
const PageSpec kWeightsPage = {"Weights",          draw_weights_page, weights_view,
                                weights_command,    false,             training_run,
                                make_weights_state, nullptr,           weights_link_position};

}  // namespace tvis::viewer
