// insights_page.h: what the application asks of the Insights page outside
// its PageSpec: the test surface's `insights` and `insight` keys, and insight
// page names (Attention, Grad-CAM, Embeddings) in links and page commands.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tvis::viewer {

struct AppState;

/// state()["insights"]: the insight pages this run has what they need for.
nlohmann::json insight_pages_json(AppState& s);
/// state()["library_attention"]: [{module, kind}] of attention computed
/// inside torch (the recorder names it; no weights exist to show), the
/// modules the Insights page's note names; empty when none.
nlohmann::json library_attention_json(AppState& s);
/// state()["insight"]: the insight page shown, null off the Insights page.
nlohmann::json shown_insight(AppState& s);
/// `name` is an insight page: the Insights page is asked for, on it. False otherwise.
bool request_insight_page(AppState& s, const std::string& name);
/// A link key for the insight page the link opens ({key: value} as a
/// command); null when the page does not know it.
nlohmann::json insights_link_key(AppState& s, const std::string& key, const nlohmann::json& value);

}  // namespace tvis::viewer
