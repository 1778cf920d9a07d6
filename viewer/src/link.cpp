#include "link.h"

#include <algorithm>

#include "app_state.h"
#include "page.h"
#include "ranks.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

// The value of a link parameter as the pages take it: numbers stay numbers,
// a string holding an integer (a URL's "2") becomes one.
json link_value(const json& v) {
  if (!v.is_string()) return v;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > 18) return v;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return v;
  for (size_t k = i; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return v;
  return std::stoll(s);
}

}  // namespace

json link_command(AppState& s, const json& link) {
  if (!link.is_object()) return false;
  s.pending_link = link;
  return true;
}

void go_to_step(AppState& s, int step) {
  const int steps = s.model.step_count();
  s.selection.step = std::clamp(step, 0, std::max(0, steps - 1));
  s.selection.jump_pending = true;
}

void apply_pending_link(AppState& s) {
  if (s.pending_link.is_null() || !s.model.ready()) return;
  json link = std::move(s.pending_link);
  s.pending_link = nullptr;
  // rank=K first: the rest of the link applies to that rank once it is open.
  if (link.contains("rank")) {
    const json rank = link_value(link["rank"]);
    link.erase("rank");
    if (rank.is_number_integer() && rank.get<int>() != s.rank && switch_rank(s, rank.get<int>(), link)) return;  // next frame
  }
  // A page that claims the link's page name (Insights: its sub-pages) gets the other keys first.
  const PageSpec* claimer =
      link.contains("page") && link["page"].is_string() ? page_claiming(s, link["page"].get<std::string>()) : nullptr;
  for (const auto& [key, raw] : link.items()) {
    const json v = link_value(raw);
    if (key == "page") {
      if (v.is_string() && page_named(v.get<std::string>())) s.page_request = v.get<std::string>();
    } else if (key == "step") {
      if (v.is_number_integer()) go_to_step(s, v.get<int>());
    } else if (key == "select") {  // after the loop: a step would move the selection again
    } else if (claimer && claimer->command && !claimer->command(s, json{{key, v}}).is_null()) {
    } else {
      for (const PageSpec* page : registered_pages())
        if (page->command && !page->command(s, json{{key, v}}).is_null()) break;
    }
  }
  // A call carried over from another rank, where this rank has that id.
  if (link.contains("select")) {
    const json v = link_value(link["select"]);
    if (v.is_number_integer() && v.get<int64_t>() >= 0 && static_cast<uint64_t>(v.get<int64_t>()) < s.model.event_count())
      s.selection.select_event(static_cast<uint64_t>(v.get<int64_t>()));
  }
}

}  // namespace tvis::viewer
