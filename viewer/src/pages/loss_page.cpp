// Loss: is the loss what I think it is. The loss per batch across the run
// (every backward() of every recorded step; click a point to go to its
// step), the exact call (function or module, arguments, source line, the
// reduction as arithmetic), each sample's p(target) -> -log p -> loss worst
// first (loss_samples.cpp), or a language model's tokens coloured by their
// loss, and the confusion matrix over every recorded batch
// (loss_confusion.cpp). What a run does not allow is said in place.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tvis/links/page_names.h"
#include "../link.h"
#include "../page.h"
#include "../ranks.h"
#include "../theme.h"
#include "loss_state.h"
#include "tvis/viewer_model/loss_call_site.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/line_plot.h"

namespace tvis::viewer {

using nlohmann::json;

extern const PageSpec kLossPage;

LossState& loss_state(AppState& s) { return page_state<LossState>(s, kLossPage); }

namespace {

std::unique_ptr<PageState> make_loss_state(AppState&) { return std::make_unique<LossState>(); }

// A rank switch keeps the loss record shown (a step with several backward()s).
void loss_link_position(AppState& s, json& link) {
  const LossState* l = existing_page_state<LossState>(s, kLossPage);
  if (l && l->backward > 0) link["backward"] = l->backward;
}

}  // namespace

std::optional<LossEntry> shown_loss(AppState& s, LossState& l) {
  return s.model.losses().shown(s.selection.step, l.backward);
}

namespace {

void muted(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

// The curve's series: one per backward() position within a step (a GAN's
// "real" and "fake" discriminator losses are two series), and of a
// distributed run one per rank and position ("rank 1", "rank 1, backward 2").
struct CurveSeries {
  std::vector<std::vector<double>> xs, ys;
  std::vector<std::string> labels;
  std::vector<int> backward;  // each series' position within a step
  std::vector<int> rank;      // each series' rank
};

CurveSeries curve_series(AppState& s) {
  CurveSeries c;
  const std::vector<RankLossCurve> curves = rank_loss_curves(rank_models(s));
  const bool by_rank = curves.size() > 1;
  for (const RankLossCurve& curve : curves) {
    std::map<int, int> seen_in_step;
    std::map<int, size_t> series_of;  // position -> series
    for (const auto& [step, value] : curve.points) {
      const int k = seen_in_step[step]++;
      if (!series_of.count(k)) {
        series_of[k] = c.xs.size();
        c.xs.emplace_back();
        c.ys.emplace_back();
        c.backward.push_back(k);
        c.rank.push_back(curve.rank);
        const std::string rank = "rank " + std::to_string(curve.rank);
        const std::string position = "backward " + std::to_string(k + 1);
        c.labels.push_back(by_rank ? (k == 0 ? rank : rank + ", " + position) : position);
      }
      c.xs[series_of[k]].push_back(step);
      c.ys[series_of[k]].push_back(value);
    }
  }
  if (!by_rank && c.xs.size() == 1) c.labels[0] = "loss";
  return c;
}

void draw_curve(AppState& s, LossState& l, float height) {
  CurveSeries c = curve_series(s);
  auto& xs = c.xs;
  auto& ys = c.ys;
  auto& labels = c.labels;
  std::vector<widgets::PlotSeries> series(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    series[i].label = labels[i].c_str();
    series[i].x = widgets::ValueSpan(xs[i]);
    series[i].y = widgets::ValueSpan(ys[i]);
  }
  widgets::LinePlotOptions o;
  o.size = ImVec2(0, height);
  o.marker_x = s.selection.step;
  o.integer_x = true;  // x is the step
  o.show_legend = series.size() > 1;
  const widgets::LinePlotResult r = widgets::line_plot("##loss_curve", series.data(), static_cast<int>(series.size()), o);
  if (r.clicked && r.has_point) {
    const int step = static_cast<int>(std::lround(r.x));
    if (r.series < 0 || r.series >= static_cast<int>(c.backward.size())) return;
    const size_t k = static_cast<size_t>(r.series);
    if (c.rank[k] != shown_rank(s) && !s.ranks.single()) {  // another rank's point: show that rank there
      switch_rank(s, c.rank[k], json{{"page", tvis::links::page::kLoss}, {"step", step}, {"backward", c.backward[k]}});
      return;
    }
    go_to_step(s, step);
    l.backward = c.backward[k];
  }
}

// A distributed run: the loss of every rank at `step` (the shown backward),
// each from its own rank's data.
void draw_rank_values(AppState& s, LossState& l, int step) {
  const auto curves = rank_loss_curves(rank_models(s));
  if (curves.size() < 2) return;
  ImGui::TextDisabled("by rank");
  for (const RankLossCurve& c : curves) {
    int k = 0;
    std::string text = "—";
    for (const auto& [at, value] : c.points)
      if (at == step && k++ == l.backward) text = widgets::format_number(value, 6);
    ImGui::SameLine();
    const ImU32 color = c.rank == shown_rank(s) ? colors::kAccent : ImGui::GetColorU32(ImGuiCol_Text);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color), "rank %d: %s", c.rank, text.c_str());
  }
}

// What the page says is not available about the shown loss's call, each a
// sentence shown in place (and state()'s view.not_available).
std::vector<std::string> call_not_available(AppState& s, const LossEntry& rec) {
  std::vector<std::string> out;
  const std::string& outer = rec.outer;
  const LossCallSite site = loss_call_site(s.model, rec);
  if (rec.call.empty()) {
    out.push_back("Not available: the loss call. No loss function or nn loss module tvis recognises produced the "
                  "tensor backward() ran on" + (outer.empty() ? std::string() : " (its grad_fn: " + outer + ")") +
                  ": a custom loss. Its value is recorded; its call, arguments, source line and per-sample losses "
                  "are not.");
  } else if (site.state == LossCallSite::State::None) {
    out.push_back("Not available: the call's source line (the recorded event is not this loss call).");
  }
  const double factor = loss_scale_factor(rec);
  if (std::isfinite(factor)) {
    const double divisor = 1.0 / factor;
    const bool whole = std::abs(divisor - std::round(divisor)) <= 1e-6 * std::abs(divisor);
    out.push_back("The loss backward() ran on is " + rec.call + "'s output " +
                  widgets::format_number(rec.call_value, 6) +
                  (whole ? " divided by " + widgets::format_number(std::round(divisor), 6) +
                               " (gradient accumulation divides each micro-batch's loss by their count, or a sum "
                               "by the items of all micro-batches)"
                         : " times " + widgets::format_number(factor, 6)) +
                  ": the gradients are the scaled loss's; the per-sample losses are the call's.");
  } else if (!outer.empty() && !rec.call.empty())
    out.push_back("The loss backward() ran on is " + outer + " of " + rec.call +
                  "'s output and more (a composite loss, e.g. plus a regulariser): its value is not the call's "
                  "reduction alone, and the per-sample losses are the call's, not the whole loss's.");
  return out;
}

void draw_call(AppState& s, LossState& l, const LossEntry& rec, const LossBatch& b) {
  const std::vector<LossEntry> records = s.model.losses().entries_at_step(rec.step);
  if (records.size() > 1) {
    ImGui::AlignTextToFramePadding();
    ImGui::Text("Step %d ran %zu backward() calls:", rec.step, records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      ImGui::SameLine();
      char label[96];
      std::snprintf(label, sizeof label, "%zu: %s##bw%zu", i + 1, widgets::format_number(records[i].value, 5).c_str(), i);
      if (ImGui::RadioButton(label, l.backward == static_cast<int>(i))) l.backward = static_cast<int>(i);
    }
  }
  ImGui::Text("Loss at step %d:", rec.step);
  ImGui::SameLine();
  const std::string value = rec.value_repr.empty() ? widgets::format_exact(rec.value) : rec.value_repr;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kAccent), "%s", value.c_str());
  draw_rank_values(s, l, rec.step);
  for (const std::string& note : call_not_available(s, rec)) muted(note.c_str());
  if (!rec.call.empty()) {
    ImGui::TextDisabled("call");
    ImGui::SameLine();
    ImGui::TextUnformatted(rec.call.c_str());
    ImGui::TextDisabled("reduces");
    ImGui::SameLine();
    ImGui::TextWrapped("%s", reduction_in_words(rec, &b).c_str());
  }
  if (!rec.args.empty()) {
    if (ImGui::BeginTable("loss_args", 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
      for (const LossArgument& kv : rec.args) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", kv.key.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(kv.value.c_str());
      }
      ImGui::EndTable();
    }
  }
  // Where it was called: the Events chunk of the call (read on demand),
  // only when that event is the call the record names.
  const LossCallSite site = loss_call_site(s.model, rec);
  if (site.found() && !site.file.empty()) {
    ImGui::TextDisabled("at");
    ImGui::SameLine();
    ImGui::Text("%s:%u", site.file.c_str(), site.line);
    if (!site.text.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("  %s", site.text.c_str());
    }
    if (ImGui::SmallButton("Show in Explore's Source")) {
      s.selection.select_event(rec.event);
      s.page_request = tvis::links::page::kExplore;
      s.show_panel = "Source";
    }
  }
  if (b.state == AnalysisState::Loading) ImGui::TextDisabled("Reading the logits and targets ...");
}

void draw_loss_page(AppState& s) {
  LossState& l = loss_state(s);
  const bool indexed = s.model.losses().ready();
  if (s.model.losses().count() == 0) {
    if (!indexed) ImGui::TextDisabled("Reading the loss records ...");
    else
      muted(s.model.chunks_of_kind(format::ChunkKind::Loss).empty()
                ? "This run recorded no loss: no backward() ran on a tensor while it was recorded (a run killed "
                  "before its first backward, or a profile capture)."
                : "The run's loss records cannot be read (see the errors above).");
    return;
  }
  const float em = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  draw_curve(s, l, std::max(em * 8, avail.y * 0.26f));
  const std::optional<LossEntry> rec = shown_loss(s, l);
  const float below = ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeight();
  const float left_w = std::max(em * 24, avail.x * 0.42f);
  ImGui::BeginChild("loss_left", ImVec2(left_w, below), true);
  if (!rec) {
    char text[160];
    std::snprintf(text, sizeof text, "No loss was recorded at step %d%s.", s.selection.step,
                  indexed ? "" : " (still reading)");
    muted(text);
  } else {
    const LossBatch& b = s.model.loss_analysis().batch(*rec);
    draw_call(s, l, *rec, b);
    draw_loss_grad_clip(s);
    ImGui::Separator();
    draw_loss_confusion(s, l);
  }
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("loss_right", ImVec2(0, below), true);
  if (rec) {
    const LossBatch& b = s.model.loss_analysis().batch(*rec);
    if (b.state == AnalysisState::Ready) {
      if (b.has_tokens) draw_loss_tokens(s, l, b);
      draw_loss_samples(s, l, *rec, b);
    } else if (b.state == AnalysisState::Loading) {
      ImGui::TextDisabled("Reading the logits and targets ...");
    } else {
      muted(("Per-sample losses, predictions and tokens are not available for this loss: " + b.why).c_str());
    }
  }
  ImGui::EndChild();
}

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// state()["view"] on the Loss page (docs/viewer_test_surface.md).
json loss_view(AppState& s) {
  LossState& l = loss_state(s);
  json losses = json::array(), backwards = json::array();
  for (const LossEntry& e : s.model.losses().entries()) {
    losses.push_back(number_or_null(e.value));
    backwards.push_back({{"step", e.step}, {"value", number_or_null(e.value)}, {"call", e.call}});
  }
  json rank_losses = json::array();  // every rank's curve (one entry for a run of one file)
  for (const RankLossCurve& c : rank_loss_curves(rank_models(s))) {
    json values = json::array(), steps = json::array();
    for (const auto& [step, value] : c.points) {
      steps.push_back(step);
      values.push_back(number_or_null(value));
    }
    rank_losses.push_back({{"rank", c.rank}, {"losses", values}, {"steps", steps}, {"ready", c.ready}});
  }
  json v = {{"step", s.selection.step}, {"losses", losses}, {"backwards", backwards}, {"backward", l.backward},
            {"rank", shown_rank(s)}, {"rank_losses", rank_losses},
            {"call", nullptr}, {"outer", nullptr}, {"source", nullptr}, {"not_available", json::array()},
            {"reduction", nullptr}, {"reduction_words", nullptr}, {"worst", json::array()},
            {"confusion", nullptr}, {"tokens", nullptr}, {"analysis", nullptr}, {"why", nullptr}};
  const std::optional<LossEntry> rec = shown_loss(s, l);
  if (rec) {
    const LossBatch& b = s.model.loss_analysis().batch(*rec);
    v["call"] = rec->call;
    v["outer"] = rec->outer;
    v["call_value"] = std::isfinite(rec->call_value) ? json(rec->call_value) : json(nullptr);
    v["loss_factor"] = std::isfinite(loss_scale_factor(*rec)) ? json(loss_scale_factor(*rec)) : json(nullptr);
    v["not_available"] = call_not_available(s, *rec);
    const LossCallSite site = loss_call_site(s.model, *rec);
    if (site.found()) v["source"] = site.file + ":" + std::to_string(site.line);
    v["reduction"] = rec->reduction;
    v["reduction_words"] = reduction_in_words(*rec, &b);
    v["analysis"] = b.state == AnalysisState::Ready ? "ready" : b.state == AnalysisState::Loading ? "loading" : "unavailable";
    if (!b.why.empty()) v["why"] = b.why;
    if (b.state == AnalysisState::Ready) {
      for (size_t k = 0; k < b.worst.size() && k < 20; ++k) {
        const SampleLossRow& r = b.rows[b.worst[k]];
        v["worst"].push_back({{"step", rec->step}, {"row", r.row}, {"target", r.target}, {"predicted", r.predicted},
                              {"p_target", number_or_null(r.p_target)}, {"neg_log_p", number_or_null(r.neg_log_p)},
                              {"loss", number_or_null(r.loss)}});
      }
      if (b.has_tokens && b.tokens.batch > 0 && b.tokens.tokens > 0 && !b.tokens.losses.empty()) {
        const int64_t row = std::clamp<int64_t>(l.token_row, 0, b.tokens.batch - 1);
        json tl = json::array(), labels = json::array();
        for (int64_t t = 0; t < b.tokens.tokens; ++t) tl.push_back(number_or_null(b.tokens.losses[static_cast<size_t>(row * b.tokens.tokens + t)]));
        const std::map<int64_t, std::string>& names = token_names(s, l);
        std::vector<json> text(static_cast<size_t>(b.tokens.tokens), nullptr);  // the row's targets' texts
        for (const SampleLossRow& r : b.rows) {
          if (r.row / b.tokens.tokens != row) continue;
          auto it = names.find(r.target);
          if (it != names.end()) text[static_cast<size_t>(r.row % b.tokens.tokens)] = it->second;
        }
        for (json& j : text) labels.push_back(std::move(j));
        v["tokens"] = {{"step", rec->step}, {"row", row}, {"losses", tl}, {"labels", labels}};
      }
    }
  }
  const Confusion& c = s.model.loss_analysis().confusion();
  if (c.state == AnalysisState::Ready) {
    json m = json::array();
    for (int t = 0; t < c.classes; ++t) {
      json rowj = json::array();
      for (int p = 0; p < c.classes; ++p) rowj.push_back(c.counts[static_cast<size_t>(t * c.classes + p)]);
      m.push_back(rowj);
    }
    v["confusion"] = m;
    const std::vector<double> norm = row_normalised(c);
    json nm = json::array(), labels = json::array();
    const auto& names = class_names_recorded(s, l);
    for (int t = 0; t < c.classes; ++t) {
      nm.push_back(std::vector<double>(norm.begin() + t * c.classes, norm.begin() + (t + 1) * c.classes));
      labels.push_back(class_label(names, t));
    }
    v["confusion_normalised"] = nm;
    v["confusion_labels"] = labels;
    v["normalised"] = l.normalised;
  }
  const bool unfollowed = l.unfollowed_row >= 0 && l.unfollowed_step == s.selection.step;
  v["unfollowed"] = unfollowed ? json{{"row", l.unfollowed_row}, {"why", l.unfollowed_why}} : json(nullptr);
  v["hovered"] = l.hovered_row < 0 ? json(nullptr) : json{{"row", l.hovered_row}, {"picture", l.hovered_picture}};
  v["confusion_state"] = c.state == AnalysisState::Ready ? "ready" : c.state == AnalysisState::Loading ? "loading" : "unavailable";
  v["confusion_batches"] = c.batches;
  v["grad_clip"] = loss_grad_clip_view(s);
  if (!c.why.empty()) v["confusion_why"] = c.why;
  return v;
}

// {"token_row": B} shows sequence B of a language model's batch;
// {"backward": K} the step's K-th loss record (0-based);
// {"confusion_normalised": bool}; {"click_row": R} clicks the sample list's
// row of logits row R (false when the shown batch has none).
json loss_command(AppState& s, const json& cmd) {
  LossState& l = loss_state(s);
  if (cmd.contains("token_row")) {
    if (!cmd["token_row"].is_number_integer()) return false;
    l.token_row = std::max(0, cmd["token_row"].get<int>());
    return true;
  }
  if (cmd.contains("backward")) {
    if (!cmd["backward"].is_number_integer()) return false;
    l.backward = std::max(0, cmd["backward"].get<int>());
    return true;
  }
  if (cmd.contains("click_row")) {  // a click on the sample list's row of that logits row
    if (!cmd["click_row"].is_number_integer()) return false;
    const std::optional<LossEntry> rec = shown_loss(s, l);
    if (!rec) return false;
    const LossBatch& b = s.model.loss_analysis().batch(*rec);
    return b.state == AnalysisState::Ready && click_loss_row(s, l, *rec, b, cmd["click_row"].get<int64_t>());
  }
  if (cmd.contains("confusion_normalised")) {
    if (!cmd["confusion_normalised"].is_boolean()) return false;
    l.normalised = cmd["confusion_normalised"].get<bool>();
    return true;
  }
  return nullptr;
}

}  // namespace

extern const PageSpec kLossPage;
const PageSpec kLossPage = {tvis::links::page::kLoss, draw_loss_page, loss_view,         loss_command, false, training_run,
                             make_loss_state, nullptr,        loss_link_position};

}  // namespace tvis::viewer
