// The Compare page: the shown run (A) and a second run (B: `tvis-view RUN
// --compare RUN2`, the browser's ?url2=, or the run list's "Compare" button)
// at the same position, with where they part ways.
//
// Top: both runs, then the first divergence (analysis/run_diff.h, what `tvis
// diff` reports) as a link: "Show" puts this page on it, "Open in Replay /
// Weights" opens run A's page there. Then the position: the navigator's
// step, and what is shown (a module call's activation or gradient, or a
// parameter's weight, grad or update), with A, B and |A - B| as heatmaps
// (compare_images.cpp). Bottom: the largest difference per layer and step,
// each row a position.
//
// Shown only while a second run is set. Link keys (with page=Compare):
// module, param, show (activation|gradient|weight|grad|update), step.
// Commands: {"compare": {step?, show?, module?, param?}}, {"compare_first": true},
// {"compare_row": I} (the run list's "Compare with shown" button of row I).
// view(): docs/viewer_test_surface.md ("Compare"). State key `compare`:
// null, or {run, status, error} of the second run.
#include <imgui.h>

#include <cmath>

#include "../link.h"
#include "../theme.h"
#include "compare_state.h"
#include "tvis/links/diff_json.h"
#include "tvis/links/page_names.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

using nlohmann::json;
namespace an = tvis::analysis;

extern const PageSpec kComparePage;

CompareState& compare_state(AppState& s) { return page_state<CompareState>(s, kComparePage); }

namespace {

const char* status_name(RunStatus st) {
  switch (st) {
    case RunStatus::Empty: return "empty";
    case RunStatus::Opening: return "opening";
    case RunStatus::Open: return "open";
    case RunStatus::Failed: return "failed";
  }
  return "empty";
}

// The position a difference of run_diff is shown at.
ComparePosition position_of(const an::TensorDelta& d) {
  ComparePosition p;
  p.step = d.step;
  if (!d.where.param.empty()) {
    p.param = d.where.param;
    p.show = d.what == "weight" ? CompareShow::Weight : d.what == "update" ? CompareShow::Update : CompareShow::Grad;
  } else {
    p.module = d.module;
    p.show = d.what == "grad" ? CompareShow::Gradient : CompareShow::Activation;
  }
  return p;
}

void go_to(AppState& s, CompareState& c, const ComparePosition& p) {
  const int step = p.step;
  const std::string module = p.module.empty() ? c.position.module : p.module;
  const std::string param = p.param.empty() ? c.position.param : p.param;
  c.position = p;
  c.position.module = module;
  c.position.param = param;
  c.placed = true;
  go_to_step(s, step);
}

// A new second run: a new comparison. Until a position is chosen, the first
// divergence is shown (else the first module's activation).
void settle(AppState& s, CompareState& c) {
  if (c.generation != s.compare_generation) {
    c.generation = s.compare_generation;
    c.comparison.reset();
    c.images.key.clear();
    c.placed = false;
  }
  c.position.step = s.selection.step;
  const ComparisonSummary& sum = c.comparison.summary(s.model, s.compare);
  if (!sum.ready) return;
  if (c.position.module.empty() && !sum.modules.empty()) c.position.module = sum.modules.front();
  if (c.position.param.empty() && !sum.params.empty()) c.position.param = sum.params.front();
  if (c.placed) return;
  c.placed = true;
  if (sum.diff.has_first) go_to(s, c, position_of(sum.diff.first));
  else if (sum.modules.empty() && !sum.params.empty()) c.position.show = CompareShow::Weight;
}

std::string run_label(RunModel& m) {
  if (m.status() != RunStatus::Open) return m.source_name();
  const RunInfo& info = m.info();
  std::string out = info.script.empty() ? m.source_name() : info.script;
  for (size_t i = 1; i < info.argv.size(); ++i) out += " " + info.argv[i];
  if (!info.date.empty()) out += "  |  " + info.date;
  return out;
}

std::string delta_words(const an::TensorDelta& d) {
  std::string where = "step " + std::to_string(d.step);
  if (!d.phase.empty()) where += ", " + d.phase;
  where += ", " + (d.module.empty() ? d.name : d.module) + " " + d.what;
  return where + " (" + d.statistic + ": " + widgets::format_number(d.a, 6) + " vs " +
         widgets::format_number(d.b, 6) + ")";
}

void draw_header(AppState& s) {
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kAccent), "A");
  ImGui::SameLine();
  ImGui::TextUnformatted(run_label(s.model).c_str());
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kAccent), "B");
  ImGui::SameLine();
  ImGui::TextUnformatted(run_label(s.compare).c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.compare.source_name().c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("Stop comparing")) s.clear_compare();
}

void draw_first(AppState& s, CompareState& c, const ComparisonSummary& sum) {
  if (!sum.mismatch.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kWarning));
    ImGui::TextWrapped("%s", sum.mismatch.c_str());
    ImGui::PopStyleColor();
  }
  const an::RunDiff& d = sum.diff;
  if (!d.has_first) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kAccent),
                       "The runs agree: %llu tensors of %llu matched calls compared, none differs.",
                       (unsigned long long)d.tensors_compared, (unsigned long long)d.events_matched);
    return;
  }
  ImGui::TextUnformatted("First divergence:");
  ImGui::SameLine();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", delta_words(d.first).c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("Show here")) go_to(s, c, position_of(d.first));
  ImGui::SameLine();
  const std::string open = std::string("Open in ") + tvis::links::page_of(d.first.where.subject);
  if (ImGui::SmallButton(open.c_str())) link_command(s, tvis::links::position_json(d.first.where));
  ImGui::TextDisabled("%llu of %llu compared tensors differ; %llu calls only in A, %llu only in B",
                      (unsigned long long)d.tensors_differing, (unsigned long long)d.tensors_compared,
                      (unsigned long long)d.events_only_a, (unsigned long long)d.events_only_b);
}

void draw_position_picker(AppState& s, CompareState& c, const ComparisonSummary& sum) {
  ImGui::Text("Step %d", c.position.step);
  ImGui::SameLine();
  for (int i = 0; i < 5; ++i) {
    const CompareShow show = static_cast<CompareShow>(i);
    if (i == 2) {
      ImGui::SameLine();
      ImGui::TextDisabled("|");
    }
    ImGui::SameLine();
    if (ImGui::RadioButton(compare_show_name(show), c.position.show == show)) {
      c.position.show = show;
      c.placed = true;
    }
  }
  ImGui::SameLine();
  const bool param = shows_param(c.position.show);
  const std::vector<std::string>& names = param ? sum.params : sum.modules;
  std::string& current = param ? c.position.param : c.position.module;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  if (ImGui::BeginCombo(param ? "parameter" : "module", current.c_str())) {
    for (const std::string& n : names)
      if (ImGui::Selectable(n.c_str(), n == current)) {
        current = n;
        c.placed = true;
      }
    ImGui::EndCombo();
  }
  (void)s;
}

void draw_largest(AppState& s, CompareState& c, const ComparisonSummary& sum) {
  if (sum.diff.largest.empty()) return;
  ImGui::TextDisabled("Largest difference per layer and step (click a row to show it)");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV;
  if (!ImGui::BeginTable("compare_largest", 5, flags, ImVec2(0, 0))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("layer", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("statistic", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  // The rows' order: |A - B| of the statistic, divided by |B| where |B| > 1 (run_diff's delta).
  ImGui::TableSetupColumn("|A - B| (/ |B| where |B| > 1)", ImGuiTableColumnFlags_WidthStretch, 1.5f);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < sum.diff.largest.size(); ++i) {
    const an::TensorDelta& d = sum.diff.largest[i];
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(static_cast<int>(i));
    const std::string name = d.module.empty() ? d.name : d.module;
    if (ImGui::Selectable(name.c_str(), position_key(position_of(d)) == position_key(c.position),
                          ImGuiSelectableFlags_SpanAllColumns))
      go_to(s, c, position_of(d));
    ImGui::PopID();
    ImGui::TableSetColumnIndex(1);
    ImGui::Text("%d", d.step);
    ImGui::TableSetColumnIndex(2);
    ImGui::TextUnformatted(d.what.c_str());
    ImGui::TableSetColumnIndex(3);
    ImGui::TextUnformatted(d.statistic.c_str());
    ImGui::TableSetColumnIndex(4);
    ImGui::TextUnformatted(d.statistic == "shape" ? "shapes differ" : widgets::format_number(d.delta, 4).c_str());
  }
  ImGui::EndTable();
}

void draw_compare_page(AppState& s) {
  CompareState& c = compare_state(s);
  settle(s, c);
  draw_header(s);
  switch (s.compare.status()) {
    case RunStatus::Empty: ImGui::TextDisabled("No second run: nothing to compare."); return;
    case RunStatus::Opening: ImGui::TextDisabled("Opening %s ...", s.compare.source_name().c_str()); return;
    case RunStatus::Failed:
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kError), "The compared run could not be opened: %s",
                         s.compare.error().c_str());
      return;
    case RunStatus::Open: break;
  }
  const ComparisonSummary& sum = c.comparison.summary(s.model, s.compare);
  if (!sum.ready) {
    ImGui::TextDisabled("reading both runs' records ...");
    return;
  }
  draw_first(s, c, sum);
  ImGui::Separator();
  draw_position_picker(s, c, sum);
  const float images_h = sum.diff.largest.empty() ? 0.0f : ImGui::GetContentRegionAvail().y * 0.6f;
  ImGui::BeginChild("compare_images_child", ImVec2(0, images_h));
  draw_compare_images(s, c);
  ImGui::EndChild();
  draw_largest(s, c, sum);
}

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json compare_view(AppState& s) {
  CompareState& c = compare_state(s);
  settle(s, c);
  const bool open = s.compare.status() == RunStatus::Open;
  const ComparisonSummary& sum = c.comparison.summary(s.model, s.compare);
  const bool param = shows_param(c.position.show);
  json out = {{"compare", s.compare.status() == RunStatus::Empty ? json(nullptr) : json(s.compare.source_name())},
              {"a", s.model.source_name()},
              {"status", status_name(s.compare.status())},
              {"ready", open && sum.ready},
              {"problem", s.compare.status() == RunStatus::Failed ? json(s.compare.error())
                          : sum.mismatch.empty()                  ? json(nullptr)
                                                                  : json(sum.mismatch)},
              {"identical", sum.ready ? json(sum.diff.same()) : json(nullptr)},
              {"first", sum.ready && sum.diff.has_first ? tvis::links::delta_json(sum.diff.first) : json(nullptr)},
              {"step", c.position.step},
              {"show", compare_show_name(c.position.show)},
              {"module", param || c.position.module.empty() ? json(nullptr) : json(c.position.module)},
              {"param", !param || c.position.param.empty() ? json(nullptr) : json(c.position.param)},
              {"shape", nullptr},
              {"max_abs", nullptr},
              {"differing", nullptr},
              {"elements", nullptr},
              {"why", nullptr}};
  json layers = json::array();
  for (const an::TensorDelta& d : sum.diff.largest)
    layers.push_back({{"module", d.module.empty() ? d.name : d.module}, {"step", d.step}, {"what", d.what},
                      {"max_abs", number_or_null(tvis::links::delta_max_abs(d))}});
  out["layers"] = layers;
  if (!open || !sum.ready) return out;
  const CompareImages* im = compare_images(s, c);
  if (!im) {
    out["why"] = "loading";
    return out;
  }
  const ComparedValues& v = im->values;
  if (!v.error.empty()) {
    out["why"] = v.error;
    return out;
  }
  out["shape"] = v.shape;
  out["max_abs"] = v.difference.comparable ? number_or_null(v.difference.max_abs) : json(nullptr);
  out["differing"] = v.difference.differing;
  out["elements"] = v.difference.elements;
  if (!v.difference.comparable) out["why"] = v.difference.why;
  out["words"] = difference_words(v);
  return out;
}

// Applies {step?, show?, module?, param?}; false when a value is of the wrong kind.
bool apply_position(AppState& s, CompareState& c, const json& p) {
  if (!p.is_object()) return false;
  settle(s, c);
  ComparePosition next = c.position;
  if (p.contains("show") && !(p["show"].is_string() && compare_show_named(p["show"].get<std::string>(), &next.show)))
    return false;
  if (p.contains("module")) {
    if (!p["module"].is_string()) return false;
    next.module = p["module"].get<std::string>();
    if (!p.contains("show") && shows_param(next.show)) next.show = CompareShow::Activation;
  }
  if (p.contains("param")) {
    if (!p["param"].is_string()) return false;
    next.param = p["param"].get<std::string>();
    if (!p.contains("show") && !shows_param(next.show)) next.show = CompareShow::Weight;
  }
  if (p.contains("step")) {
    if (!p["step"].is_number_integer()) return false;
    next.step = p["step"].get<int>();
  }
  go_to(s, c, next);
  return true;
}

json compare_command(AppState& s, const json& cmd) {
  if (cmd.contains("compare")) return s.model.status() == RunStatus::Open && apply_position(s, compare_state(s), cmd["compare"]);
  if (cmd.contains("compare_row"))  // the run list's "Compare with shown" button
    return cmd["compare_row"].is_number_unsigned() && compare_with_run_row(s, cmd["compare_row"].get<size_t>());
  if (cmd.contains("compare_first")) {
    if (s.model.status() != RunStatus::Open) return false;
    CompareState& c = compare_state(s);
    settle(s, c);
    const ComparisonSummary& sum = c.comparison.summary(s.model, s.compare);
    if (!sum.ready || !sum.diff.has_first) return false;
    go_to(s, c, position_of(sum.diff.first));
    return true;
  }
  // A link's keys, when the link names this page (claims() asked for it).
  const bool here = s.page == links::page::kCompare || s.page_request == links::page::kCompare;
  if (!here || s.model.status() != RunStatus::Open) return nullptr;
  for (const char* key : {"module", "param", "show"})
    if (cmd.contains(key)) return apply_position(s, compare_state(s), json{{key, cmd[key]}});
  return nullptr;
}

bool compare_present(AppState& s) { return training_run(s) && s.compare.status() != RunStatus::Empty; }

std::unique_ptr<PageState> make_compare_state(AppState& s) {
  auto c = std::make_unique<CompareState>();
  c->generation = s.compare_generation;
  return c;
}

void compare_state_keys(AppState& s, json& state) {
  if (s.compare.status() == RunStatus::Empty) {
    state["compare"] = nullptr;
    return;
  }
  state["compare"] = {{"run", s.compare.source_name()},
                      {"status", status_name(s.compare.status())},
                      {"error", s.compare.error().empty() ? json(nullptr) : json(s.compare.error())}};
}

bool compare_claims(AppState& s, const std::string& name) {
  if (name != links::page::kCompare || !compare_present(s)) return false;
  s.page_request = links::page::kCompare;
  return true;
}

void compare_link_position(AppState& s, json& link) {
  const CompareState* c = existing_page_state<CompareState>(s, kComparePage);
  if (!c) return;
  link["show"] = compare_show_name(c->position.show);
  if (shows_param(c->position.show)) link["param"] = c->position.param;
  else link["module"] = c->position.module;
}

}  // namespace

const PageSpec kComparePage = {tvis::links::page::kCompare, draw_compare_page,   compare_view,   compare_command, false,
                               compare_present,    make_compare_state,  compare_state_keys,
                               compare_link_position, compare_claims,   nullptr,        nullptr};

}  // namespace tvis::viewer
