// Insights: Attention · Grad-CAM · Embeddings, each a sub-page shown only
// when the run has what it needs (insights_state.h). Attention computed
// inside torch (nn.MultiheadAttention, fused kernels: the recorder names
// them) is said at the top with the module names, never hidden silently.
//
// Its own hooks (page.h): the sub-pages' names are the page's to claim in
// links and page commands (the link's other keys come here first), and
// state() gets `insights` (the sub-pages this run has), `insight` (the one
// shown, null off the page) and `library_attention` ([{module, kind}] of
// attention computed inside torch, the modules the note names).
#include <imgui.h>

#include "tvis/links/page_names.h"
#include "../page.h"
#include "attention_shown.h"
#include "embeddings_shown.h"
#include "gradcam_shown.h"
#include "insights_state.h"

namespace tvis::viewer {

using nlohmann::json;

extern const PageSpec kInsightsPage;

namespace {

constexpr InsightPage kAll[] = {InsightPage::Attention, InsightPage::GradCam, InsightPage::Embeddings};

std::unique_ptr<PageState> make_insights_state(AppState&) { return std::make_unique<InsightsState>(); }

bool has(AppState& s, InsightPage p) {
  Insights& in = s.model.insights();
  switch (p) {
    case InsightPage::Attention: return !in.attention().empty();
    case InsightPage::GradCam: return !in.gradcam().empty();
    case InsightPage::Embeddings: return !in.embeddings().empty() || !in.tables().empty();
  }
  return false;
}

bool insights_present(AppState& s) {
  return s.model.status() == RunStatus::Open &&
         (!present_insights(s).empty() || !s.model.insights().library_attention().empty());
}

void draw_library_note(AppState& s) {
  const auto& lib = s.model.insights().library_attention();
  if (lib.empty()) return;
  std::string text = "Attention computed inside torch could not be rebuilt from its inputs, so no weights were "
                     "recorded for: ";
  for (size_t i = 0; i < lib.size(); ++i) text += (i ? ", " : "") + lib[i].module + " (" + lib[i].kind + ")";
  text += ". Fused fast paths run only when no parameter needs a gradient; record a training step, or compute "
          "softmax(q k^T / sqrt(d)) in your own module.";
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(0xFF4FC8F5));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

InsightPage shown_page(AppState& s, InsightsState& st, const std::vector<InsightPage>& present) {
  for (InsightPage p : present)
    if (p == st.page) return p;
  return present.empty() ? st.page : present.front();
}

void draw_insights_page(AppState& s) {
  InsightsState& st = insights_state(s);
  draw_library_note(s);
  const std::vector<InsightPage> present = present_insights(s);
  if (present.empty()) {
    insight_hint(s.model.insights().ready() ? "This run has no attention weights, Grad-CAM maps or embeddings."
                                            : "reading the run's insight records ...");
    return;
  }
  if (!ImGui::BeginTabBar("insight_pages")) return;
  const std::optional<InsightPage> asked = st.request;
  st.request.reset();
  bool drawn = false;
  for (InsightPage p : present) {
    const ImGuiTabItemFlags flags = asked == p ? ImGuiTabItemFlags_SetSelected : 0;
    if (!ImGui::BeginTabItem(insight_page_name(p), nullptr, flags)) continue;
    if (!asked || *asked == p || !has(s, *asked)) {
      st.page = p;
      drawn = true;
    }
    ImGui::EndTabItem();
  }
  if (asked && has(s, *asked) && !drawn) st.page = *asked;  // its tab shows from the next frame
  ImGui::EndTabBar();
  switch (shown_page(s, st, present)) {
    case InsightPage::Attention: draw_attention(s, st); break;
    case InsightPage::GradCam: draw_gradcam(s, st); break;
    case InsightPage::Embeddings: draw_embeddings(s, st); break;
  }
}

// A sub-page's view with the shown sample's batch row as the model answers
// it now (the row of a step whose samples were still read when the view was
// built is known later; the drawing used it all along).
json with_row(AppState& s, json v) {
  if (v.is_object() && v["step"].is_number_integer() && v["sample"].is_number_integer())
    v["row"] = sample_row(s.model, v["step"].get<int>(), v["sample"].get<int>());
  return v;
}

json insights_view(AppState& s) {
  InsightsState& st = insights_state(s);
  const std::vector<InsightPage> present = present_insights(s);
  if (present.empty()) return nullptr;
  switch (shown_page(s, st, present)) {
    case InsightPage::Attention: return with_row(s, attention_json(s, st));
    case InsightPage::GradCam: return with_row(s, gradcam_json(s, st));
    case InsightPage::Embeddings: return embeddings_json(s, st);
  }
  return nullptr;
}

// Commands for the sub-page shown first, then the others; {"insight": NAME} picks one.
json insights_command(AppState& s, const json& cmd) {
  InsightsState& st = insights_state(s);
  if (cmd.contains("insight")) {
    const auto p = cmd["insight"].is_string() ? insight_page_named(cmd["insight"].get<std::string>()) : std::nullopt;
    if (!p) return false;
    st.request = *p;
    s.page_request = links::page::kInsights;
    return true;
  }
  if (s.page != links::page::kInsights && s.page_request != links::page::kInsights) return nullptr;  // its keys (module, head, ...) are the other pages' off it
  if (cmd.contains("sample")) {  // the sample every sub-page shows
    if (!cmd["sample"].is_number_integer()) return false;
    st.sample = cmd["sample"].get<int>();
    const int pos = s.model.samples().position(st.sample);
    if (pos >= 0) s.selection.sample_cursor = pos;
    return true;
  }
  json r;
  switch (st.page) {
    case InsightPage::Attention: r = attention_command(s, st, cmd); break;
    case InsightPage::GradCam: r = gradcam_command(s, st, cmd); break;
    case InsightPage::Embeddings: r = embeddings_command(s, st, cmd); break;
  }
  return r;
}

}  // namespace

const char* insight_page_name(InsightPage p) {
  switch (p) {
    case InsightPage::Attention: return "Attention";
    case InsightPage::GradCam: return "Grad-CAM";
    case InsightPage::Embeddings: return "Embeddings";
  }
  return "";
}

std::optional<InsightPage> insight_page_named(const std::string& name) {
  for (InsightPage p : kAll)
    if (name == insight_page_name(p)) return p;
  return std::nullopt;
}

InsightsState& insights_state(AppState& s) { return page_state<InsightsState>(s, kInsightsPage); }

std::vector<InsightPage> present_insights(AppState& s) {
  std::vector<InsightPage> out;
  if (s.model.status() != RunStatus::Open) return out;
  for (InsightPage p : kAll)
    if (has(s, p)) out.push_back(p);
  return out;
}

namespace {

bool request_insight_page(AppState& s, const std::string& name) {
  const auto p = insight_page_named(name);
  if (!p) return false;
  InsightsState& st = insights_state(s);
  st.request = *p;
  st.page = *p;
  s.page_request = links::page::kInsights;
  return true;
}

json shown_insight(AppState& s) {
  if (s.page != links::page::kInsights || !s.model.ready()) return nullptr;
  InsightsState& st = insights_state(s);
  const std::vector<InsightPage> present = present_insights(s);
  if (present.empty()) return nullptr;
  return insight_page_name(shown_page(s, st, present));
}

json insight_pages_json(AppState& s) {
  json out = json::array();
  for (InsightPage p : present_insights(s)) out.push_back(insight_page_name(p));
  return out;
}

json library_attention_json(AppState& s) {
  json out = json::array();
  if (s.model.status() != RunStatus::Open) return out;
  for (const LibraryAttentionEntry& e : s.model.insights().library_attention())
    out.push_back({{"module", e.module}, {"kind", e.kind}});
  return out;
}

void insights_state_keys(AppState& s, json& state) {
  const bool run_open = s.model.ready();
  state["insights"] = run_open ? insight_pages_json(s) : json::array();
  state["insight"] = run_open ? shown_insight(s) : json(nullptr);
  state["library_attention"] = run_open ? library_attention_json(s) : json::array();
}

}  // namespace

const PageSpec kInsightsPage = {tvis::links::page::kInsights, draw_insights_page,  insights_view, insights_command, false,
                                insights_present,    make_insights_state, insights_state_keys,
                                /*link_position=*/nullptr, request_insight_page};

}  // namespace tvis::viewer
