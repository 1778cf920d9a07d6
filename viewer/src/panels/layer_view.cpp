// The shared per-layer panel: On image · Neurons · Stats (layer_view.h).
#include "layer_view.h"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <functional>

#include "../theme.h"
#include "budget_thumbnail.h"
#include "picture.h"
#include "tvis/viewer_model/class_names.h"
#include "tvis/widgets/bar_chart.h"
#include "tvis/widgets/colormap.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/histogram.h"

namespace tvis::viewer {

namespace {

constexpr const char* kTabNames[] = {"On image", "Neurons", "Stats"};
constexpr int kMapMaxBlocks = 64;     // overlay cells drawn per side at most
constexpr int kNeuronMaxBlocks = 12;  // a neuron thumbnail's cells per side at most
constexpr int kJsonMaxSide = 256;

const char* kMaxElemsHint = "record with a larger `tvis run --max-elems N` to keep them";

std::vector<int64_t> shape_of(const schema::TensorRecord& r) {
  std::vector<int64_t> s;
  if (r.shape()) s.assign(r.shape()->begin(), r.shape()->end());
  return s;
}

// The tensor the panel shows for `e`: its first output, or its first
// gradient (dL/d(output)). A call whose output was recorded by another call
// first (a container returning its last child's output, the same tensor)
// lists that record's id among its outputs / grad_outputs.
TensorRef pick_tensor(RunModel& model, const schema::Event& e, bool gradient, bool* complete) {
  std::vector<TensorRef> all = model.tensors().for_event(model, e.id(), e.step(), complete);
  const schema::TensorRole want = gradient ? schema::TensorRole::GradOutput : schema::TensorRole::Output;
  TensorRef best;
  for (auto& t : all)
    if (t.rec->role() == want && (!best || t.rec->slot() < best.rec->slot())) best = t;
  const auto* listed = gradient ? e.grad_outputs() : e.outputs();
  if (best || !listed || listed->size() == 0) return best;
  bool done = true;
  best = model.tensors().by_id(model, listed->Get(0), e.step(), &done);
  if (!done) *complete = false;
  return best;
}

// The sample's picture: the last pipeline stage that was an image (before
// ToTensor / Normalize), else the sample as batched.
std::optional<uint64_t> picture_tensor_of(RunModel& model, int step, int sample, bool* complete) {
  std::optional<uint64_t> out;
  if (sample < 0) return out;
  *complete = model.samples().for_step(step, [&](const schema::Sample* s) {
    if (s->id() != sample || out) return;
    if (s->transforms())
      for (const auto* t : *s->transforms())
        if (t->output_kind() == schema::ValueKind::PILImage && t->output() >= 0)
          out = static_cast<uint64_t>(t->output());
    if (!out && s->input() >= 0) out = static_cast<uint64_t>(s->input());
  }) && *complete;
  return out;
}

ImU32 heat(double v, double hi, float alpha) {
  ImU32 c = widgets::colormap_color(widgets::Colormap::Sequential, widgets::ColorRange{0, hi > 0 ? hi : 1}, v);
  return (c & 0x00FFFFFF) | (static_cast<ImU32>(alpha * 255) << 24);
}

// Draws a rows x cols grid of values in [min, max], blocks merged to at most
// max_blocks a side (block mean): one texture (target.key naming the values)
// drawn at `alpha` when target has textures and an uploader, else one
// rectangle per block. Returns the cell under the mouse (-1 none).
std::pair<int, int> draw_grid(ImDrawList* dl, ImVec2 min, ImVec2 max, int rows, int cols,
                              const std::function<double(int, int)>& at, double hi, float alpha, int max_blocks,
                              const TextureTarget& target) {
  if (rows <= 0 || cols <= 0) return {-1, -1};
  const int br = std::max(1, (rows + max_blocks - 1) / max_blocks), bc = std::max(1, (cols + max_blocks - 1) / max_blocks);
  const float cw = (max.x - min.x) / cols, ch = (max.y - min.y) / rows;
  auto blocks = [&](const std::function<void(int, int, int, int, ImU32)>& block) {
    for (int r0 = 0; r0 < rows; r0 += br)
      for (int c0 = 0; c0 < cols; c0 += bc) {
        const int r1 = std::min(rows, r0 + br), c1 = std::min(cols, c0 + bc);
        double sum = 0;
        for (int r = r0; r < r1; ++r)
          for (int c = c0; c < c1; ++c) sum += at(r, c);
        block(r0, c0, r1, c1, heat(sum / ((r1 - r0) * (c1 - c0)), hi, 1.0f));
      }
  };
  ImTextureID id = nullptr;
  if (target.textures && target.uploader)
    id = target.textures->get(target.uploader, target.key + "|grid|" + std::to_string(max_blocks),
                              [&](std::vector<std::uint8_t>* rgba, int* w, int* h) {
                                *w = cols;
                                *h = rows;
                                rgba->assign(static_cast<size_t>(rows) * cols * 4, 0);
                                blocks([&](int r0, int c0, int r1, int c1, ImU32 col) { fill_texels(rgba, cols, c0, r0, c1, r1, col); });
                                return true;
                              });
  const ImU32 a = static_cast<ImU32>(alpha * 255) << 24;
  if (id)
    dl->AddImage(id, min, max, ImVec2(0, 0), ImVec2(1, 1), 0x00FFFFFF | a);  // the tint sets the opacity
  else
    blocks([&](int r0, int c0, int r1, int c1, ImU32 col) {
      dl->AddRectFilled(ImVec2(min.x + c0 * cw, min.y + r0 * ch), ImVec2(min.x + c1 * cw, min.y + r1 * ch), (col & 0x00FFFFFF) | a);
    });
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (m.x < min.x || m.y < min.y || m.x >= max.x || m.y >= max.y) return {-1, -1};
  return {std::clamp(static_cast<int>((m.y - min.y) / ch), 0, rows - 1),
          std::clamp(static_cast<int>((m.x - min.x) / cw), 0, cols - 1)};
}

void say(const std::string& text, unsigned color = colors::kMuted) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(color));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// ---------------------------------------------------------------- On image --

// A strip's token labels, one under each cell that is wide enough for it.
void draw_token_labels(ImDrawList* dl, ImVec2 p0, ImVec2 size, const std::vector<std::string>& labels) {
  if (labels.empty()) return;
  const float cw = size.x / static_cast<float>(labels.size());
  for (size_t t = 0; t < labels.size(); ++t) {
    const ImVec2 ts = ImGui::CalcTextSize(labels[t].c_str());
    if (ts.x > cw - 2) continue;
    dl->AddText(ImVec2(p0.x + cw * (static_cast<float>(t) + 0.5f) - ts.x * 0.5f, p0.y + size.y + 2),
                ImGui::GetColorU32(ImGuiCol_Text), labels[t].c_str());
  }
  ImGui::Dummy(ImVec2(size.x, ImGui::GetTextLineHeightWithSpacing()));
}

void draw_on_image(PanelContext& c, LayerViewState& v) {
  const LayerMaps& m = v.maps;
  const LayerAttention& att = v.attention;
  const float em = ImGui::GetFontSize();
  draw_layer_attention_choice(v.attention);
  const bool attention = att.painting();
  v.attention.drawn = attention;
  if (m.map.empty() && !attention) {
    say(std::string("A ") + layout_label(m.layout) + " has no spatial map; see Neurons for its values.");
    return;
  }
  // What is painted: where a token looks (attention), or mean |x| per location.
  const int rows = attention ? att.rows() : m.map_rows, cols = attention ? att.cols() : m.map_cols;
  const std::vector<double>& cells = attention ? att.grid : m.map;
  const std::string key = attention ? "attention" + std::to_string(att.tensor) + "|" + std::to_string(att.query_token())
                                    : "maps" + std::to_string(v.texture_version);
  ImGui::SetNextItemWidth(em * 8);
  ImGui::SliderFloat("opacity", &v.opacity, 0.0f, 1.0f, "%.2f");
  ImGui::SameLine();
  if (attention && att.strip)
    ImGui::TextDisabled("%d tokens", cols);
  else if (attention)
    ImGui::TextDisabled("patch grid %d x %d%s", rows, cols, att.cls ? " (without [CLS])" : "");
  else
    ImGui::TextDisabled("map %d x %d%s, mean |x| over %d %s", m.map_rows, m.map_cols,
                        m.skipped_cls ? " (without [CLS])" : "", m.neurons,
                        m.layout == LayerMaps::Layout::Conv ? "channels" : "dims");
  const double hi = *std::max_element(cells.begin(), cells.end());
  const PictureLayout pl = picture_layout(v.picture.shape);
  const bool has_picture = pl.ok && !v.picture.values.empty();
  const float aspect_w = has_picture ? static_cast<float>(pl.width) : static_cast<float>(cols);
  const float aspect_h = has_picture ? static_cast<float>(pl.height) : static_cast<float>(rows);
  ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool listing = v.picked_r >= 0 && !attention;
  const float list_w = listing ? std::min(em * 14, avail.x * 0.4f) : 0.0f;
  ImVec2 box(avail.x - list_w - em * 4, std::max(em * 6, avail.y - em * 1.5f));
  if (rows == 1) box.y = std::min(box.y, em * 3);  // a token strip
  ImVec2 size = fit_picture(aspect_w, rows == 1 && !has_picture ? aspect_w / 24 : aspect_h, box);
  if (size.x < 4) size = ImVec2(em * 8, em * 8);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 p1(p0.x + size.x, p0.y + size.y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGui::InvisibleButton("##onimage", size);
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked();
  if (has_picture)
    draw_picture(dl, p0, p1, v.picture.values.data(), v.picture.values.size(), pl, v.picture_bytes,
                 TextureTarget{&v.textures, c.options.texture_uploader, "picture" + std::to_string(v.picture_tensor)});
  else
    dl->AddRectFilled(p0, p1, IM_COL32(20, 20, 24, 255));
  auto cell = draw_grid(
      dl, p0, p1, rows, cols, [&](int r, int col) { return cells[static_cast<size_t>(r) * cols + col]; }, hi,
      has_picture ? v.opacity : 1.0f, kMapMaxBlocks, TextureTarget{&v.textures, c.options.texture_uploader, key});
  const std::pair<int, int> looking = att.cell_of(att.query_token());  // {-1, -1}: [CLS], on no patch
  const int mark_r = attention ? looking.first : v.picked_r;
  const int mark_c = attention ? looking.second : v.picked_c;
  if (mark_r >= 0 && mark_r < rows && mark_c >= 0 && mark_c < cols) {  // the clicked location / the looking patch
    const float cw = size.x / cols, ch = size.y / rows;
    dl->AddRect(ImVec2(p0.x + mark_c * cw, p0.y + mark_r * ch), ImVec2(p0.x + (mark_c + 1) * cw, p0.y + (mark_r + 1) * ch),
                IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
  }
  if (hovered && cell.first >= 0) {
    const double val = cells[static_cast<size_t>(cell.first) * cols + cell.second];
    if (attention && att.strip)
      ImGui::SetTooltip("token %d '%s': weight %s\n(click: where this token looks)", cell.second,
                        att.labels[static_cast<size_t>(cell.second)].c_str(), widgets::format_exact(val).c_str());
    else if (attention)
      ImGui::SetTooltip("patch (%d, %d): weight %s\n(click: where this patch looks)", cell.first, cell.second,
                        widgets::format_exact(val).c_str());
    else
      ImGui::SetTooltip("row %d, col %d: mean |x| = %s\n(click: every neuron's value here)", cell.first, cell.second,
                        widgets::format_exact(val).c_str());
    if (clicked && attention) {
      v.attention.query = att.token_at(cell.first, cell.second);
    } else if (clicked) {
      v.picked_r = cell.first;
      v.picked_c = cell.second;
    }
  }
  // Colour bar.
  ImGui::SameLine();
  const ImVec2 b0 = ImGui::GetCursorScreenPos();
  widgets::colorbar(dl, b0, ImVec2(b0.x + em * 0.8f, b0.y + size.y), widgets::Colormap::Sequential,
                    widgets::ColorRange{0, hi > 0 ? hi : 1});
  ImGui::Dummy(ImVec2(em * 3.5f, size.y));
  if (attention && att.strip) draw_token_labels(dl, p0, size, att.labels);
  if (!has_picture && rows > 1) {  // a map meant to lie over the sample's picture (a token strip is not)
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextDisabled("no picture of the sample recorded");
    ImGui::EndGroup();
  }
  if (listing && v.picked_r < m.map_rows && v.picked_c < m.map_cols) {
    ImGui::SameLine();
    ImGui::BeginChild("neurons_here", ImVec2(0, size.y), true);
    ImGui::Text("at (%d, %d)", v.picked_r, v.picked_c);
    ImGui::SameLine();
    if (ImGui::SmallButton("close")) v.picked_r = v.picked_c = -1;
    if (ImGui::BeginTable("here", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY)) {
      ImGui::TableSetupColumn("neuron");
      ImGui::TableSetupColumn("value");
      ImGuiListClipper clip;
      clip.Begin(m.neurons);
      while (clip.Step())
        for (int n = clip.DisplayStart; n < clip.DisplayEnd; ++n) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::Text("%d", n);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(widgets::format_exact(m.neuron_at(n, v.picked_r, v.picked_c)).c_str());
        }
      ImGui::EndTable();
    }
    ImGui::EndChild();
  }
}

// ----------------------------------------------------------------- Neurons --

void draw_neuron_detail(PanelContext& c, LayerViewState& v) {
  const LayerMaps& m = v.maps;
  const int n = v.picked_neuron;
  ImGui::Text("neuron %d", n);
  ImGui::SameLine();
  ImGui::TextDisabled("mean |x| %s", widgets::format_exact(m.strength[n]).c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("back to all")) v.picked_neuron = -1;
  if (m.neuron_rows <= 0) return;
  std::vector<double> cells(static_cast<size_t>(m.neuron_rows) * m.neuron_cols);
  for (int r = 0; r < m.neuron_rows; ++r)
    for (int col = 0; col < m.neuron_cols; ++col) cells[static_cast<size_t>(r) * m.neuron_cols + col] = m.neuron_at(n, r, col);
  widgets::HeatmapOptions o;
  o.colormap = widgets::Colormap::Diverging;
  o.symmetric = true;
  o.uploader = c.options.texture_uploader;
  o.texture = &v.neuron_texture;
  o.data_version = v.texture_version * 100000 + static_cast<uint64_t>(n);
  o.size = ImVec2(0, std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().y - 4));
  widgets::heatmap("##neuron", widgets::ValueSpan(cells), m.neuron_rows, m.neuron_cols, o);
}

void draw_neurons(PanelContext& c, LayerViewState& v) {
  const LayerMaps& m = v.maps;
  const float em = ImGui::GetFontSize();
  if (m.neurons == 0) {
    say("No neurons: the tensor is empty.");
    return;
  }
  if (m.layout == LayerMaps::Layout::Vector || m.layout == LayerMaps::Layout::Other) {
    // A classifier's logits (the output a loss of the step took as logits):
    // each bar named by its class where the samples carry class names.
    v.neuron_labels.clear();
    if (produced_logits(c.model, v.event, v.step)) {
      const std::map<int64_t, std::string> classes = class_names_at(c.model, v.step);
      for (int i = 0; i < m.neurons && !classes.empty(); ++i) {
        auto it = classes.find(i);
        v.neuron_labels.push_back(it == classes.end() ? std::to_string(i) : it->second);
      }
    }
    ImGui::TextDisabled("%d values, largest |x| first%s", m.neurons,
                        v.neuron_labels.empty() ? "" : "; the logits, by class");
    std::vector<std::string> names(static_cast<size_t>(m.neurons));
    std::vector<const char*> labels(names.size());
    for (int i = 0; i < m.neurons; ++i) {
      names[i] = v.neuron_labels.empty() ? std::to_string(i) : v.neuron_labels[static_cast<size_t>(i)];
      labels[i] = names[i].c_str();
    }
    std::vector<double> shown(m.values.begin(), m.values.end());
    std::vector<double> ordered(shown.size());
    std::vector<const char*> ordered_labels(shown.size());
    for (size_t i = 0; i < m.order.size(); ++i) {
      ordered[i] = shown[m.order[i]];
      ordered_labels[i] = labels[m.order[i]];
    }
    widgets::BarChartOptions o;
    o.size = ImVec2(0, std::max(em * 6, ImGui::GetContentRegionAvail().y - 4));
    // The picked bar's exact number above the chart (a click picks, another click on it drops).
    const bool picked = v.picked_neuron >= 0 && v.picked_neuron < m.neurons;
    if (picked) {
      const int n = v.picked_neuron;
      const int rank = static_cast<int>(std::find(m.order.begin(), m.order.end(), n) - m.order.begin());
      ImGui::Text("value %d%s%s = %s", n, v.neuron_labels.empty() ? "" : " ",
                  v.neuron_labels.empty() ? "" : v.neuron_labels[static_cast<size_t>(n)].c_str(),
                  widgets::format_exact(m.values[static_cast<size_t>(n)]).c_str());
      ImGui::SameLine();
      ImGui::TextDisabled("(rank %d of %d by |x|)", rank + 1, m.neurons);
      ImGui::SameLine();
      if (ImGui::SmallButton("clear")) v.picked_neuron = -1;
    } else {
      ImGui::TextDisabled("click a bar for its exact value");
    }
    o.size = ImVec2(0, std::max(em * 6, ImGui::GetContentRegionAvail().y - 4));
    widgets::BarChartResult r = widgets::bar_chart("##bars", widgets::ValueSpan(ordered), ordered_labels.data(), o);
    if (r.clicked && r.index >= 0) v.picked_neuron = v.picked_neuron == m.order[r.index] ? -1 : m.order[r.index];
    return;
  }
  if (v.picked_neuron >= 0 && v.picked_neuron < m.neurons) {
    draw_neuron_detail(c, v);
    return;
  }
  ImGui::TextDisabled("%d %s, most active first (mean |x|); click one for its numbers", m.neurons,
                      m.layout == LayerMaps::Layout::Conv ? "channels" : "dims");
  const float thumb = em * 4.2f;
  const float cell_w = thumb + em * 0.6f;
  ImGui::BeginChild("neuron_grid", ImVec2(0, 0), false);
  const int per_row = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / cell_w));
  const int rows = (m.neurons + per_row - 1) / per_row;
  double hi = 0;
  for (double s : m.values) hi = std::max(hi, std::fabs(s));
  ImGuiListClipper clip;
  clip.Begin(rows, thumb + em * 1.4f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  while (clip.Step())
    for (int row = clip.DisplayStart; row < clip.DisplayEnd; ++row) {
      for (int k = 0; k < per_row; ++k) {
        const int idx = row * per_row + k;
        if (idx >= m.neurons) break;
        const int n = m.order[idx];
        if (k) ImGui::SameLine();
        ImGui::BeginGroup();
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::PushID(n);
        ImGui::InvisibleButton("##n", ImVec2(thumb, thumb));
        const bool hover = ImGui::IsItemHovered();
        if (ImGui::IsItemClicked()) v.picked_neuron = n;
        ImGui::PopID();
        draw_grid(dl, p0, ImVec2(p0.x + thumb, p0.y + thumb), m.neuron_rows, m.neuron_cols,
                  [&](int r, int col) { return std::fabs(m.neuron_at(n, r, col)); }, hi, 1.0f, kNeuronMaxBlocks,
                  TextureTarget{&v.textures, c.options.texture_uploader,
                                "neuron" + std::to_string(v.texture_version) + "|" + std::to_string(n)});
        if (hover) {
          dl->AddRect(p0, ImVec2(p0.x + thumb, p0.y + thumb), IM_COL32(255, 255, 255, 255));
          ImGui::SetTooltip("%s %d: mean |x| = %s", m.layout == LayerMaps::Layout::Conv ? "channel" : "dim", n,
                            widgets::format_exact(m.strength[n]).c_str());
        }
        ImGui::TextDisabled("#%d", n);
        ImGui::EndGroup();
      }
    }
  ImGui::EndChild();
}

// ------------------------------------------------------------------- Stats --

void stats_table(const char* title, const schema::TensorRecord* r) {
  ImGui::TextUnformatted(title);
  if (!r || !r->stats()) {
    ImGui::SameLine();
    ImGui::TextDisabled("not recorded");
    return;
  }
  const schema::Stats& st = *r->stats();
  ImGui::SameLine();
  ImGui::TextDisabled("%s", shape_label(r->shape()).c_str());
  if (ImGui::BeginTable(title, 6, ImGuiTableFlags_SizingStretchSame)) {
    auto cell = [](const char* k, double x) {
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", k);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(widgets::format_number(x, 4).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s = %s", k, widgets::format_exact(x).c_str());
    };
    cell("min", st.min());
    cell("max", st.max());
    cell("mean", st.mean());
    cell("std", st.std());
    cell("mean|x|", st.mean_abs());
    cell("l2", st.l2());
    ImGui::EndTable();
  }
  if (st.histogram() && st.histogram()->size() && st.hist_hi() > st.hist_lo()) {
    std::vector<double> counts(st.histogram()->begin(), st.histogram()->end());
    widgets::HistogramMark marks[1] = {{st.mean(), "mean", 0}};
    widgets::HistogramOptions o;
    o.size = ImVec2(0, ImGui::GetFontSize() * 4.5f);
    o.marks = marks;
    o.mark_count = 1;
    ImGui::PushID(title);
    widgets::histogram("##h", widgets::ValueSpan(counts), st.hist_lo(), st.hist_hi(), o);
    ImGui::PopID();
  }
}

void update_history(RunModel& model, LayerViewState& v) {
  const int steps = std::min(model.step_count(), 64);
  for (int step = 0; step < steps; ++step) {
    if (v.history_done[step]) continue;
    const schema::Event* found = nullptr;
    const bool complete = model.for_step_events(step, [&](const schema::Event* e) {
      if (!found && e->kind() == schema::EventKind::ModuleCall && e->phase() == schema::Phase::Forward && e->name() &&
          e->name()->str() == v.history_module)
        found = e;
    });
    if (!found) {
      if (complete) v.history_done[step] = true;
      continue;
    }
    LayerViewState::StepRow row;
    row.step = step;
    row.grad = found->grad_norm();
    bool done = true;
    for (const TensorRef& t : model.tensors().for_event(model, found->id(), step, &done))
      if (t.rec->role() == schema::TensorRole::Output && t.rec->stats()) {
        row.mean = t.rec->stats()->mean();
        row.std = t.rec->stats()->std();
        row.mean_abs = t.rec->stats()->mean_abs();
        break;
      }
    v.history[step] = row;
    if (done) v.history_done[step] = true;
  }
}

void draw_stats(PanelContext& c, LayerViewState& v, const schema::Event& e) {
  bool complete = true;
  TensorRef act = pick_tensor(c.model, e, false, &complete);
  TensorRef grad = pick_tensor(c.model, e, true, &complete);
  stats_table("activation", act ? act.rec : nullptr);
  ImGui::Spacing();
  stats_table("gradient dL/d(output)", grad ? grad.rec : nullptr);
  if (!grad) say("No gradient recorded for this call: backward did not pass through its output.");
  ImGui::Spacing();
  if (v.history_module != v.module) {
    v.history_module = v.module;
    v.history.clear();
    v.history_done.clear();
  }
  update_history(c.model, v);
  ImGui::TextUnformatted("across the recorded steps");
  if (ImGui::BeginTable("history", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY,
                        ImVec2(0, std::max(ImGui::GetFontSize() * 5, ImGui::GetContentRegionAvail().y - 4)))) {
    ImGui::TableSetupColumn("step");
    ImGui::TableSetupColumn("mean");
    ImGui::TableSetupColumn("std");
    ImGui::TableSetupColumn("mean|x|");
    ImGui::TableSetupColumn("||dL/dout||");
    ImGui::TableHeadersRow();
    for (const auto& [step, row] : v.history) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text(step == v.step ? "%d  <" : "%d", step);
      for (double x : {row.mean, row.std, row.mean_abs, row.grad}) {
        ImGui::TableNextColumn();
        if (std::isnan(x) || x < -0.5) ImGui::TextDisabled("-");
        else ImGui::TextUnformatted(widgets::format_number(x, 4).c_str());
      }
    }
    ImGui::EndTable();
  }
}

// Decodes what the panel needs for `t` (values, maps, picture); sets
// v.problem when a part cannot be had. Returns the record shown.
const schema::TensorRecord* resolve(PanelContext& c, LayerViewState& v, const LayerTarget& t, const schema::Event& e,
                                    TensorRef* keep) {
  bool complete = true;
  *keep = pick_tensor(c.model, e, v.of_gradient, &complete);
  if (!*keep) {
    v.problem = !complete ? "loading ..."
                : v.of_gradient ? "No gradient recorded for this call: backward did not pass through its output."
                                : "No output tensor recorded for this call.";
    return nullptr;
  }
  const schema::TensorRecord& rec = *keep->rec;
  if (rec.kept() == schema::ValuesKept::None) {
    v.problem = "Values not kept for this tensor (" + shape_label(rec.shape()) + ", " +
                std::to_string(element_count(rec.shape())) + " elements): " +
                (has_budget_thumbnail(rec) ? std::string(budget_refused_sentence())
                                           : std::string("only its statistics were recorded; ") + kMaxElemsHint) +
                ".";
    return &rec;
  }
  if (v.values_tensor != rec.id()) {
    std::string error;
    TensorValues values;
    if (c.model.tensors().read_values(c.model, rec, &values, &error) == ChunkRead::Loading) {
      v.problem = "loading values ...";
      return &rec;
    }
    v.values = std::move(values);
    v.values_error = error;
    v.values_tensor = rec.id();
    v.maps_tensor = UINT64_MAX;
  }
  if (!v.values_error.empty()) {
    v.problem = "Values unreadable: " + v.values_error;
    return &rec;
  }
  if (t.row < 0) {
    v.problem = t.sample >= 0 ? "Sample " + std::to_string(t.sample) + " is not in this step's batch (or its batch is loading)."
                              : "loading ...";
    return &rec;
  }
  if (v.maps_tensor != rec.id() || v.maps_row != t.row) {
    v.maps = layer_maps(v.values, shape_of(rec), t.row);
    v.maps_tensor = rec.id();
    v.maps_row = t.row;
    ++v.texture_version;
  }
  if (!v.maps.problem.empty()) {
    v.problem = "Values not kept for sample " + std::to_string(t.sample) + ": " + v.maps.problem + "; " +
                (has_budget_thumbnail(rec) ? budget_refused_sentence() : kMaxElemsHint) + ".";
    return &rec;
  }
  // The picture under the map.
  bool done = true;
  std::optional<uint64_t> pid = picture_tensor_of(c.model, t.step, t.sample, &done);
  if (pid && *pid != v.picture_tensor) {
    bool found = true;
    TensorRef pr = c.model.tensors().by_id(c.model, *pid, t.step, &found);
    if (pr) {
      TensorValues pv;
      std::string err;
      if (c.model.tensors().read_values(c.model, *pr.rec, &pv, &err) != ChunkRead::Loading) {
        v.picture = err.empty() ? std::move(pv) : TensorValues{};
        v.picture_bytes = pr.rec->dtype() == schema::DType::UInt8;
        v.picture_tensor = *pid;
      }
    }
  } else if (!pid && done) {
    v.picture = TensorValues{};
    v.picture_tensor = UINT64_MAX;
  }
  return &rec;
}

}  // namespace

int sample_row(RunModel& model, int step, int sample) {
  if (sample < 0) return 0;  // no followed samples: the leading row
  int row = -1;
  model.samples().for_step(step, [&](const schema::Sample* s) {
    if (s->id() == sample && s->step() == step && row < 0) row = s->batch_position();
  });
  return row;
}

void prefetch_layer(RunModel& model, const LayerTarget& t) {
  const schema::Event* e = model.event(t.event);
  if (!e) return;
  bool complete = true;
  for (bool gradient : {false, true}) {
    TensorRef ref = pick_tensor(model, *e, gradient, &complete);
    if (!ref || ref.rec->kept() == schema::ValuesKept::None) continue;
    model.cache().get(ref.rec->data_chunk());  // starts the read when not resident
  }
}

void draw_layer_view(PanelContext& c, LayerViewState& v, const LayerTarget& t) {
  v.shown = false;
  const schema::Event* e = c.model.event(t.event);
  if (!e) {
    ImGui::TextDisabled("loading the call ...");
    return;
  }
  if (e->kind() != schema::EventKind::ModuleCall) {
    ImGui::TextDisabled("Not a module call: no layer view.");
    return;
  }
  v.shown = true;
  v.module = e->name() ? e->name()->str() : std::string();
  v.event = t.event;
  v.of_gradient = t.gradient ? *t.gradient : v.gradient;
  v.step = t.step;
  v.sample = t.sample;
  v.row = t.row;
  v.problem.clear();
  if (v.tab_request) {
    v.tab = *v.tab_request;
  }

  // Header: module, of, tabs.
  ImGui::TextUnformatted(v.module.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s", e->class_name() ? e->class_name()->c_str() : "");
  ImGui::SameLine();
  if (t.gradient) {
    ImGui::TextDisabled("| %s", v.of_gradient ? "gradient dL/d(output)" : "activation");
  } else {
    int of = v.gradient ? 1 : 0;
    ImGui::RadioButton("activation", &of, 0);
    ImGui::SameLine();
    ImGui::RadioButton("gradient", &of, 1);
    v.gradient = of == 1;
    v.of_gradient = v.gradient;
  }
  ImGui::SameLine();
  if (t.sample >= 0) ImGui::TextDisabled("| sample %d, row %d", t.sample, t.row);
  else ImGui::TextDisabled("| batch row 0 (no followed samples)");

  TensorRef keep;
  const schema::TensorRecord* shown = resolve(c, v, t, *e, &keep);
  if (v.of_gradient) v.attention.found = false;  // attention weights are the forward's: a gradient shows its strength
  else resolve_layer_attention(c, v.attention, t.event, t.step, t.sample);
  const bool thumbnail = !v.problem.empty() && shown && has_budget_thumbnail(*shown);
  v.thumbnail = thumbnail ? budget_thumbnail_json(*shown) : nlohmann::json(nullptr);
  {
    bool complete = true;
    auto stats_of = [&](bool gradient) -> nlohmann::json {
      TensorRef r = pick_tensor(c.model, *e, gradient, &complete);
      if (!r || !r.rec->stats()) return nullptr;
      const schema::Stats& st = *r.rec->stats();
      return {{"mean", st.mean()}, {"std", st.std()},           {"min", st.min()},
              {"max", st.max()},   {"mean_abs", st.mean_abs()}, {"l2", st.l2()}};
    };
    v.stats = {{"activation", stats_of(false)}, {"gradient", stats_of(true)}};
  }
  if (ImGui::BeginTabBar("layer_tabs")) {
    for (int i = 0; i < 3; ++i) {
      ImGuiTabItemFlags f = v.tab_request && *v.tab_request == i ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(kTabNames[i], nullptr, f)) {
        v.tab = i;
        ImGui::BeginChild("layer_body", ImVec2(0, 0), false);
        if (i == LayerViewState::Stats) {
          draw_stats(c, v, *e);
        } else if (!v.problem.empty()) {
          say(v.problem, v.problem.find("loading") == 0 ? colors::kMuted : colors::kWarning);
          if (thumbnail) draw_budget_thumbnail(c, *shown, v.thumbnail_texture);
        } else if (i == LayerViewState::OnImage) {
          draw_on_image(c, v);
        } else {
          draw_neurons(c, v);
        }
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  v.tab_request.reset();
}

nlohmann::json layer_view_json(const LayerViewState& v) {
  using nlohmann::json;
  if (!v.shown) return nullptr;
  json out = {{"module", v.module},       {"tab", kTabNames[std::clamp(v.tab, 0, 2)]},
              {"of", v.of_gradient ? "gradient" : "activation"},
              {"step", v.step},           {"sample", v.sample},
              {"row", v.row}};
  const bool ok = v.problem.empty() && v.maps.problem.empty() && v.maps_tensor != UINT64_MAX;
  if (ok && !v.maps.map.empty()) {
    const int R = v.maps.map_rows, C = v.maps.map_cols;
    const int br = (R + kJsonMaxSide - 1) / kJsonMaxSide, bc = (C + kJsonMaxSide - 1) / kJsonMaxSide;
    json map = json::array();
    for (int r0 = 0; r0 < R; r0 += br) {
      json row = json::array();
      for (int c0 = 0; c0 < C; c0 += bc) {
        double sum = 0;
        int n = 0;
        for (int r = r0; r < std::min(R, r0 + br); ++r)
          for (int c = c0; c < std::min(C, c0 + bc); ++c, ++n) sum += v.maps.map[static_cast<size_t>(r) * C + c];
        row.push_back(sum / n);
      }
      map.push_back(std::move(row));
    }
    out["map"] = std::move(map);
  } else {
    out["map"] = nullptr;
  }
  out["neurons_order"] = ok ? json(v.maps.order) : json(nullptr);
  out["neuron_labels"] = ok && !v.neuron_labels.empty() ? json(v.neuron_labels) : json(nullptr);
  // The clicked neuron and its exact value (a vector's bar; a map's mean |x|).
  const bool picked = ok && v.picked_neuron >= 0 && v.picked_neuron < v.maps.neurons;
  out["picked_neuron"] = picked ? json(v.picked_neuron) : json(nullptr);
  out["picked_value"] = !picked ? json(nullptr)
                        : v.maps.layout == LayerMaps::Layout::Vector || v.maps.layout == LayerMaps::Layout::Other
                            ? json(v.maps.values[static_cast<size_t>(v.picked_neuron)])
                            : json(v.maps.strength[static_cast<size_t>(v.picked_neuron)]);
  out["stats"] = v.stats;
  out["attention"] = layer_attention_json(v.attention);
  if (!v.problem.empty()) out["problem"] = v.problem;
  out["thumbnail"] = v.thumbnail;
  return out;
}

}  // namespace tvis::viewer
