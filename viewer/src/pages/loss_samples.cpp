// The Loss page's per-sample list (every sample of the batch, worst first:
// p(target) -> -log p -> loss, the predicted class; followed samples marked,
// a click follows one in Replay) and a language model's tokens (each target
// token coloured by its loss, padding struck out, hover for p(target) and the
// top predictions).
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tvis/links/page_names.h"
#include "../page.h"
#include "../panels/picture.h"
#include "../panels/tensor_picture.h"
#include "../theme.h"
#include "loss_state.h"
#include "tvis/viewer_model/batch_row.h"
#include "tvis/widgets/colormap.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

namespace {

// The k most likely classes of row `row` of the kept logits, as (class, p).
std::vector<std::pair<int64_t, double>> top_predictions(const LossBatch& b, int64_t row, int k) {
  std::vector<std::pair<int64_t, double>> out;
  const int64_t v = b.classes;
  if (v <= 0 || static_cast<size_t>((row + 1) * v) > b.logits.values.size()) return out;
  const double* x = &b.logits.values[static_cast<size_t>(row * v)];
  const bool log_probs = b.function == "nll_loss";
  double m = x[0];
  for (int64_t j = 1; j < v; ++j) m = std::max(m, x[j]);
  double sum = 0;
  if (!log_probs)
    for (int64_t j = 0; j < v; ++j) sum += std::exp(x[j] - m);
  for (int64_t j = 0; j < v; ++j) out.emplace_back(j, log_probs ? std::exp(x[j]) : std::exp(x[j] - m) / sum);
  const size_t n = std::min<size_t>(static_cast<size_t>(k), out.size());
  std::partial_sort(out.begin(), out.begin() + static_cast<long>(n), out.end(),
                    [](const auto& a, const auto& c) { return a.second > c.second; });
  out.resize(n);
  return out;
}

// The batch row `row` of `step` as a picture, when the batch is pictures of
// the loss's rows (same count: batch_row); nothing otherwise (tokens,
// tables). Returns "drawn", "loading" or "none".
const char* draw_row_picture(AppState& s, LossState& l, int step, int64_t row, int64_t rows) {
  const BatchRow batch = batch_row(s.model, step, row, rows);
  if (batch.state == BatchRow::State::PlanLoading) {
    ImGui::TextDisabled("loading the batch ...");
    return "loading";
  }
  if (batch.state == BatchRow::State::Loading) return "loading";
  if (batch.state == BatchRow::State::None || !picture_layout(batch.row_shape).ok) return "none";
  const std::shared_ptr<const DecodedTensor> values = s.model.values().get(batch.tensor, step);
  if (values->loading) {
    ImGui::Dummy(ImVec2(ImGui::GetFontSize() * 6, ImGui::GetFontSize() * 6));
    return "loading";
  }
  if (!values->error.empty()) return "none";
  draw_tensor_picture(s.model, s.selection.run, static_cast<int64_t>(batch.tensor), step, ImGui::GetFontSize() * 6,
                      static_cast<int>(row), &l.pictures, s.options.texture_uploader);
  return "drawn";
}

void follow_in_replay(AppState& s, int sample) {
  const int pos = s.model.samples().position(sample);
  if (pos >= 0) s.selection.sample_cursor = pos;
  if (page_named(links::page::kReplay)) s.page_request = links::page::kReplay;
}

}  // namespace

bool click_loss_row(AppState& s, LossState& l, const LossEntry& loss, const LossBatch& b, int64_t row) {
  const SampleLossRow* r = nullptr;
  for (const SampleLossRow& x : b.rows)
    if (x.row == row) r = &x;
  if (!r) return false;
  if (r->followed) {
    l.unfollowed_row = -1;
    l.unfollowed_why.clear();
    follow_in_replay(s, r->sample);
    return true;
  }
  const int64_t followed = loss.followed_samples;
  char why[320];
  std::snprintf(why, sizeof why,
                "Row %" PRId64 " cannot be followed in Replay: the recorder followed %s%" PRId64
                " row%s of this batch (tvis run --samples %" PRId64 "). Record again with --samples %" PRId64
                " or more to follow it.",
                row, followed ? "only the first " : "", followed, followed == 1 ? "" : "s", followed, row + 1);
  l.unfollowed_row = row;
  l.unfollowed_step = loss.step;
  l.unfollowed_why = why;
  return true;
}

void draw_loss_samples(AppState& s, LossState& l, const LossEntry& loss, const LossBatch& b) {
  // Classes by their names; a language model's target and predicted tokens by their text ("9 s").
  std::map<int64_t, std::string> names;
  if (b.has_tokens) {
    const std::map<int64_t, std::string>& tokens = token_names(s, l);
    for (const auto& entry : tokens) names.emplace(entry.first, token_text(tokens, entry.first));
  } else {
    names = class_names(s, loss.step);
  }
  l.hovered_row = -1;
  l.hovered_picture = "none";
  const bool tokens = b.has_tokens && b.tokens.tokens > 0;
  ImGui::Text("%s of step %d, worst first", tokens ? "Tokens" : "Samples", loss.step);
  ImGui::SameLine();
  ImGui::TextDisabled("(%zu%s; -log p and loss in nats)", b.rows.size(), tokens ? " target tokens" : " samples");
  if (!b.why.empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", b.why.c_str());
  if (b.weighted)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kMuted),
                       "Class weights: the weighted loss is known only for the followed samples; the list is ordered "
                       "by -log p.");
  if (l.unfollowed_row >= 0 && l.unfollowed_step == loss.step)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", l.unfollowed_why.c_str());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("worst", 7, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("#");
  ImGui::TableSetupColumn(tokens ? "seq, pos" : "row");
  ImGui::TableSetupColumn("target");
  ImGui::TableSetupColumn("predicted");
  ImGui::TableSetupColumn("p(target)");
  ImGui::TableSetupColumn("-log p");
  ImGui::TableSetupColumn("loss");
  ImGui::TableHeadersRow();
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(b.worst.size()));
  while (clip.Step()) {
    for (int k = clip.DisplayStart; k < clip.DisplayEnd; ++k) {
      const SampleLossRow& r = b.rows[b.worst[static_cast<size_t>(k)]];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char id[32];
      std::snprintf(id, sizeof id, "%d##w%d", k + 1, k);
      const bool clicked = ImGui::Selectable(id, false, ImGuiSelectableFlags_SpanAllColumns);
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        if (r.followed) ImGui::Text("Followed sample %d: click to follow it in Replay", r.sample);
        else ImGui::TextDisabled("Not followed by the recorder (click: why)");
        l.hovered_row = r.row;
        l.hovered_picture = tokens ? "none" : draw_row_picture(s, l, loss.step, r.row, static_cast<int64_t>(b.rows.size()));
        ImGui::TextDisabled("Top predictions:");
        for (const auto& [c, p] : top_predictions(b, r.row, 5))
          ImGui::Text("%s  p = %s%s", class_label(names, c).c_str(), widgets::format_exact(p).c_str(),
                      c == r.target ? "  (target)" : "");
        ImGui::EndTooltip();
      }
      if (clicked) click_loss_row(s, l, loss, b, r.row);
      ImGui::TableNextColumn();
      if (tokens)
        ImGui::Text("%" PRId64 ", %" PRId64, r.row / b.tokens.tokens, r.row % b.tokens.tokens);
      else
        ImGui::Text("%" PRId64 "%s", r.row, r.followed ? " *" : "");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(class_label(names, r.target).c_str());
      ImGui::TableNextColumn();
      if (r.predicted != r.target)
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kError), "%s", class_label(names, r.predicted).c_str());
      else
        ImGui::TextUnformatted(class_label(names, r.predicted).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(widgets::format_number(r.p_target, 4).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(widgets::format_number(r.neg_log_p, 4).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::isnan(r.loss) ? "?" : widgets::format_number(r.loss, 4).c_str());
    }
  }
  ImGui::EndTable();
}

void draw_loss_tokens(AppState& s, LossState& l, const LossBatch& b) {
  const TokenLosses& tk = b.tokens;
  const std::map<int64_t, std::string>& names = token_names(s, l);
  if (tk.batch <= 0 || tk.tokens <= 0 || tk.losses.empty()) {
    ImGui::TextDisabled("The token layout does not match the logits: tokens not shown.");
    return;
  }
  const int64_t row = std::clamp<int64_t>(l.token_row, 0, tk.batch - 1);
  ImGui::AlignTextToFramePadding();
  ImGui::Text("Sequence");
  ImGui::SameLine();
  int shown = static_cast<int>(row);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::SliderInt("##token_row", &shown, 0, static_cast<int>(tk.batch - 1))) l.token_row = shown;
  ImGui::SameLine();
  ImGui::TextDisabled("of %" PRId64 " x %" PRId64 " tokens, vocabulary %" PRId64 "; colour: the token's loss%s", tk.batch,
                      tk.tokens, tk.vocab, tk.recorded ? "" : " (recomputed)");
  // Colour scale over the whole batch's finite token losses.
  double hi = 0;
  for (double v : tk.losses)
    if (std::isfinite(v)) hi = std::max(hi, v);
  const widgets::ColorRange range{0, hi > 0 ? hi : 1};
  std::vector<int64_t> targets(static_cast<size_t>(tk.tokens), -1);
  for (const SampleLossRow& r : b.rows)
    if (r.row / tk.tokens == row) targets[static_cast<size_t>(r.row % tk.tokens)] = r.target;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float em = ImGui::GetFontSize();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (int64_t t = 0; t < tk.tokens; ++t) {
    const size_t i = static_cast<size_t>(row * tk.tokens + t);
    const bool pad = tk.ignored[i];
    const std::string shown_text = pad ? "pad" : token_text(names, targets[static_cast<size_t>(t)]);
    const char* text = shown_text.c_str();
    const ImVec2 ts = ImGui::CalcTextSize(text);
    const ImVec2 box(std::max(ts.x + em * 0.8f, em * 2.2f), ts.y + em * 0.5f);
    if (t > 0) {
      ImGui::SameLine(0, em * 0.25f);
      if (ImGui::GetCursorScreenPos().x + box.x > right) ImGui::NewLine();
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::PushID(static_cast<int>(t));
    ImGui::InvisibleButton("tok", box);
    const bool hovered = ImGui::IsItemHovered();
    ImGui::PopID();
    const double v = tk.losses[i];
    const ImU32 fill = pad || !std::isfinite(v) ? IM_COL32(60, 60, 60, 255)
                                                : widgets::colormap_color(widgets::Colormap::Sequential, range, v);
    const ImVec2 q(p.x + box.x, p.y + box.y);
    dl->AddRectFilled(p, q, fill, 3.0f);
    if (hovered) dl->AddRect(p, q, IM_COL32(255, 255, 255, 255), 3.0f, 0, 2.0f);
    const widgets::Rgb8 rgb = widgets::colormap_rgb(widgets::Colormap::Sequential, widgets::color_range_t(range, v));
    const bool light = !pad && std::isfinite(v) && widgets::perceived_lightness(rgb) > 60;
    const ImU32 ink = pad ? IM_COL32(150, 150, 150, 255) : light ? IM_COL32(10, 10, 10, 255) : IM_COL32(240, 240, 240, 255);
    dl->AddText(ImVec2(p.x + (box.x - ts.x) * 0.5f, p.y + (box.y - ts.y) * 0.5f), ink, text);
    if (pad) dl->AddLine(ImVec2(p.x + 3, p.y + box.y * 0.5f), ImVec2(q.x - 3, p.y + box.y * 0.5f), ink, 1.5f);
    if (hovered) {
      ImGui::BeginTooltip();
      ImGui::Text("sequence %" PRId64 ", position %" PRId64, row, t);
      if (pad) {
        ImGui::Text("padding (target = ignore_index %" PRId64 "): not in the loss", tk.ignore_index);
      } else {
        const int64_t id = targets[static_cast<size_t>(t)];
        ImGui::Text("target token %s (id %" PRId64 "), loss %s", token_text(names, id).c_str(), id,
                    widgets::format_exact(v).c_str());
        const int64_t flat = row * tk.tokens + t;
        for (const SampleLossRow& r : b.rows)
          if (r.row == flat) ImGui::Text("p(target) = %s", widgets::format_exact(r.p_target).c_str());
        ImGui::TextDisabled("Top predictions:");
        for (const auto& [c, pr] : top_predictions(b, flat, 5))
          ImGui::Text("token %s (id %" PRId64 ")  p = %s", token_text(names, c).c_str(), c, widgets::format_exact(pr).c_str());
      }
      ImGui::EndTooltip();
    }
  }
  ImGui::Spacing();
  ImGui::Separator();
}

}  // namespace tvis::viewer
