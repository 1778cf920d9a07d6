// The Diagnosis page: diagnose's findings for the open run (analysis/, the
// same checks as `tvis diagnose`), worst first, each a link to where the
// viewer shows it.
//
// The top bar's badge (PageSpec::top_bar_badge) counts the findings and
// opens the page.
//
// view(): {ready, findings: [{kind, severity, message, evidence, link}],
// counts: {error, warning, note}, read: {chunks, bytes}, problem,
// nothing_to_judge (the reason, or null: tvis diagnose's exit 2), ranks:
// {count, read (how many ranks' facts are in), cross_rank (findings of the
// cross-rank checks)}}.
// Commands: {"finding": I} opens finding I's link. State key `diagnosis`:
// {ready, count, errors} (the badge), always present.
#include <imgui.h>

#include <cstdio>

#include "tvis/links/finding_json.h"
#include "tvis/links/page_names.h"

#include "app_state.h"
#include "link.h"
#include "page.h"
#include "ranks.h"
#include "theme.h"

namespace tvis::viewer {

extern const PageSpec kDiagnosisPage;

namespace {

using nlohmann::json;
namespace an = tvis::analysis;

/// Where a finding shows: links/page_link.h, the mapping `tvis diagnose`'s `link` uses.
json link_of(const an::Position& w) { return tvis::links::position_json(w); }

/// The findings shown: the shown rank's, merged with the cross-rank checks'
/// once every rank's facts are read. Kept until a rank's diagnosis is redone
/// (a live run grew), so the checks run once, not every frame.
struct DiagnosisState : PageState {
  std::vector<std::pair<const RunModel*, uint64_t>> key;  // each rank's model and its chunks read
  std::vector<an::Finding> merged;
  size_t cross_rank = 0;  // how many of `merged` came from check_ranks
  size_t ranks_read = 0;  // ranks whose facts are in
};

std::unique_ptr<PageState> make_diagnosis_state(AppState&) { return std::make_unique<DiagnosisState>(); }

/// The findings to show, or nullptr while the shown rank's chunks load. For
/// one file, the model's own; for a run of several rank files, the shown
/// rank's plus check_ranks over every rank whose facts are read (the others
/// keep loading: `ranks_read` says how many are in).
const std::vector<an::Finding>* shown_findings(AppState& s, DiagnosisState** state_out = nullptr) {
  const std::vector<an::Finding>* own = s.model.diagnosis().findings();
  if (!own || s.ranks.single()) return own;
  DiagnosisState& st = page_state<DiagnosisState>(s, kDiagnosisPage);
  if (state_out) *state_out = &st;
  std::vector<std::pair<const RunModel*, uint64_t>> key;
  std::vector<const an::RunFacts*> facts;
  for (const RankModel& rm : rank_models(s)) {
    const an::RunFacts* f = rm.second ? rm.second->diagnosis().facts() : nullptr;
    if (!f) return own;  // a rank still loading: its own findings meanwhile
    key.emplace_back(rm.second, rm.second->diagnosis().chunks_read());
    facts.push_back(f);
  }
  if (key != st.key) {
    st.key = std::move(key);
    st.merged = *own;
    const size_t before = st.merged.size();
    an::check_ranks(facts, st.merged);
    st.cross_rank = st.merged.size() - before;
    st.ranks_read = facts.size();
    an::order_worst_first(st.merged);
  }
  return &st.merged;
}

/// Why the run gives the checks nothing to judge, as `tvis diagnose` decides
/// it (exit 2): the recorder stopped after an internal error, or no step was
/// completed and nothing was found at warning or error; "" otherwise.
std::string nothing_to_judge(const an::RunFacts& facts, const std::vector<an::Finding>& findings) {
  const std::string why = an::nothing_to_judge(facts);
  if (why.empty() || facts.notice("recorder_error") || facts.meta().capture) return why;
  for (const an::Finding& f : findings)
    if (f.severity != an::Severity::Note) return "";
  return why;
}

unsigned color_of(an::Severity s) {
  return s == an::Severity::Error ? colors::kError : s == an::Severity::Warning ? colors::kWarning : colors::kMuted;
}

/// "why: ratio 1.31, expected max 0.25, ...": the finding's evidence as it
/// reads, keys with their underscores as spaces (expected_* keys are the
/// range a threshold allows).
std::string evidence_text(const an::Finding& f) {
  std::string out;
  for (const an::Evidence& e : f.evidence) {
    char b[64];
    if (e.text.empty())
      std::snprintf(b, sizeof b, "%.4g", e.number);
    std::string key = e.key;
    for (char& c : key) c = c == '_' ? ' ' : c;
    out += (out.empty() ? "why: " : ", ") + key + " " + (e.text.empty() ? std::string(b) : e.text);
  }
  return out;
}

void draw_finding(AppState& s, size_t i, const an::Finding& f) {
  ImGui::PushID(static_cast<int>(i));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(color_of(f.severity)));
  ImGui::TextUnformatted(an::severity_name(f.severity));
  ImGui::PopStyleColor();
  ImGui::SameLine(ImGui::GetFontSize() * 5);
  ImGui::TextUnformatted(f.kind.c_str());
  ImGui::SameLine();
  char label[96];
  std::snprintf(label, sizeof label, "Open %s%s%s", tvis::links::page_of(f.where.subject), f.where.step >= 0 ? ", step " : "",
                f.where.step >= 0 ? std::to_string(f.where.step).c_str() : "");
  if (ImGui::SmallButton(label)) link_command(s, link_of(f.where));
  ImGui::Indent(ImGui::GetFontSize() * 5);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(f.message.c_str());
  ImGui::PopTextWrapPos();
  ImGui::TextDisabled("%s", evidence_text(f).c_str());
  ImGui::Unindent(ImGui::GetFontSize() * 5);
  ImGui::Separator();
  ImGui::PopID();
}

void draw_diagnosis_page(AppState& s) {
  RunDiagnosis& d = s.model.diagnosis();
  DiagnosisState* st = nullptr;
  const std::vector<an::Finding>* findings = shown_findings(s, &st);
  if (!findings) {
    ImGui::TextDisabled("reading the run's statistics ...");
    return;
  }
  ImGui::TextDisabled("%zu checks over the run's statistics and indexes (%llu chunks, %.1f kB; tensor values not read)",
                      an::check_kinds().size(), (unsigned long long)d.chunks_read(), double(d.bytes_read()) / 1e3);
  if (!s.ranks.single()) {
    if (st && st->ranks_read == s.ranks.size())
      ImGui::TextDisabled("rank %d's checks, and the cross-rank checks over all %zu rank files (%zu finding%s)",
                          shown_rank(s), s.ranks.size(), st->cross_rank, st->cross_rank == 1 ? "" : "s");
    else
      ImGui::TextDisabled("rank %d's checks; reading the other rank files for the cross-rank checks ...", shown_rank(s));
  }
  if (!d.problem().empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", d.problem().c_str());
  ImGui::Separator();
  const std::string unjudged = nothing_to_judge(*d.facts(), *findings);
  if (!unjudged.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "Nothing to judge: %s", unjudged.c_str());
    ImGui::PopTextWrapPos();
  } else if (findings->empty()) {
    ImGui::TextUnformatted("No findings: none of the checks saw a problem in the recorded steps.");
    return;
  }
  ImGui::BeginChild("findings");
  for (size_t i = 0; i < findings->size(); ++i) draw_finding(s, i, (*findings)[i]);
  ImGui::EndChild();
}

json diagnosis_view(AppState& s) {
  RunDiagnosis& d = s.model.diagnosis();
  DiagnosisState* st = nullptr;
  const std::vector<an::Finding>* findings = shown_findings(s, &st);
  json out = {{"ready", findings != nullptr}, {"findings", json::array()}, {"problem", d.problem()}};
  out["nothing_to_judge"] = findings && !nothing_to_judge(*d.facts(), *findings).empty()
                                ? json(nothing_to_judge(*d.facts(), *findings))
                                : json(nullptr);
  int counts[3] = {0, 0, 0};
  if (findings)
    for (const an::Finding& f : *findings) {
      counts[static_cast<int>(f.severity)] += 1;
      out["findings"].push_back(tvis::links::finding_json(f));  // the same object as tvis diagnose --json
    }
  out["counts"] = {{"error", counts[0]}, {"warning", counts[1]}, {"note", counts[2]}};
  out["read"] = {{"chunks", d.chunks_read()}, {"bytes", d.bytes_read()}};
  const bool all_ranks = st && st->ranks_read == s.ranks.size();
  out["ranks"] = {{"count", s.ranks.single() ? 1 : s.ranks.size()},
                  {"read", s.ranks.single() ? 1 : all_ranks ? st->ranks_read : 1},
                  {"cross_rank", all_ranks ? json(st->cross_rank) : json(nullptr)}};
  return out;
}

json diagnosis_command(AppState& s, const json& cmd) {
  if (!cmd.contains("finding")) return nullptr;
  const std::vector<an::Finding>* findings = shown_findings(s);
  if (!cmd["finding"].is_number_integer() || !findings) return false;
  const int64_t i = cmd["finding"].get<int64_t>();
  if (i < 0 || size_t(i) >= findings->size()) return false;
  return link_command(s, link_of((*findings)[size_t(i)].where));
}

void diagnosis_state_keys(AppState& s, json& state) {
  const std::vector<an::Finding>* findings =
      s.model.status() == RunStatus::Open ? shown_findings(s) : nullptr;
  int errors = 0;
  if (findings)
    for (const an::Finding& f : *findings) errors += f.severity == an::Severity::Error;
  state["diagnosis"] = {{"ready", findings != nullptr},
                        {"count", findings ? json(findings->size()) : json(nullptr)},
                        {"errors", errors}};
}

void draw_diagnosis_badge(AppState& s) {
  if (!training_run(s)) return;
  const std::vector<an::Finding>* findings = shown_findings(s);
  if (!findings || findings->empty()) return;
  size_t errors = 0;
  for (const an::Finding& f : *findings) errors += f.severity == an::Severity::Error;
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Button, ImGui::ColorConvertU32ToFloat4(errors ? 0xFF3030A0 : 0xFF206080));
  char label[48];
  std::snprintf(label, sizeof label, "%zu finding%s", findings->size(), findings->size() == 1 ? "" : "s");
  if (ImGui::SmallButton(label)) link_command(s, json{{"page", tvis::links::page::kDiagnosis}});
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%zu error%s; diagnose's checks found what the Diagnosis page lists", errors,
                      errors == 1 ? "" : "s");
}

}  // namespace

const PageSpec kDiagnosisPage = {tvis::links::page::kDiagnosis, draw_diagnosis_page, diagnosis_view, diagnosis_command, false,
                                 training_run,   make_diagnosis_state, diagnosis_state_keys,
                                 nullptr,        nullptr,             nullptr,        draw_diagnosis_badge};

}  // namespace tvis::viewer
