#include "ranks.h"

#include <algorithm>

#include "app_state.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

void open_source(AppState& s, const RankSource& src) {
  auto source = src.open ? src.open()
                         : format::Result<std::shared_ptr<format::ByteSource>>(
                               format::Status::error(format::ErrorCode::Io, "no source"));
  if (source.ok()) s.model.open(source.value());
  else s.model.fail(src.name + ": " + source.status().message);
}

// The position a rank switch keeps, as a link.
json carried_position(AppState& s) {
  json link = {{"page", s.page}, {"step", s.selection.step}};
  if (s.selection.event) link["select"] = *s.selection.event;
  const int sample = s.model.ready() ? s.followed_sample() : -1;
  if (sample >= 0) link["sample"] = sample;
  for (const PageSpec* page : registered_pages())  // each page's own position (Weights' parameter, ...)
    if (page->link_position) page->link_position(s, link);
  return link;
}

}  // namespace

void open_rank_set(AppState& s, std::vector<RankSource> sources, int shown) {
  s.rank_request.reset();
  s.runs.clear();
  s.showing_run_list = false;
  s.reset_navigation();
  s.ranks.reset(sources.size() >= 2 ? std::move(sources) : std::vector<RankSource>{});
  if (s.ranks.single()) {
    s.rank = 0;
    if (sources.size() == 1) open_source(s, sources.front());
    else s.model.fail("no rank file to open");
    return;
  }
  s.rank = s.ranks.source_of(shown) ? shown : s.ranks.sources().front().rank;
  open_source(s, *s.ranks.source_of(s.rank));
}

bool switch_rank(AppState& s, int rank, const json& extra) {
  if (!s.ranks.source_of(rank)) return false;
  s.rank_request = RankRequest{rank, extra};
  return true;
}

void apply_rank_request(AppState& s) {
  if (!s.rank_request) return;
  const RankRequest request = std::move(*s.rank_request);
  s.rank_request.reset();
  const RankSource* src = s.ranks.source_of(request.rank);
  if (!src) return;
  if (request.rank == s.rank && s.model.status() != RunStatus::Failed) {
    if (!request.extra.empty()) s.pending_link = request.extra;
    return;
  }
  json link = carried_position(s);
  for (const auto& [key, value] : request.extra.items()) link[key] = value;
  const RankSource chosen = *src;
  s.reset_navigation();
  s.rank = request.rank;
  open_source(s, chosen);
  s.pending_link = link;
}

json rank_command(AppState& s, const json& cmd) {
  if (!cmd.contains("rank")) return nullptr;
  const json& v = cmd["rank"];
  if (!v.is_number_integer()) return false;
  return switch_rank(s, v.get<int>());
}

int rank_count(const AppState& s) { return s.ranks.single() ? 1 : static_cast<int>(s.ranks.size()); }

int shown_rank(AppState& s) {
  if (!s.ranks.single()) return s.rank;
  if (s.model.status() != RunStatus::Open) return 0;
  return std::max(0, rank_identity_of(s.model.info()).rank);
}

std::vector<RankModel> rank_models(AppState& s) {
  std::vector<RankModel> out;
  if (s.ranks.single()) {
    out.emplace_back(shown_rank(s), &s.model);
    return out;
  }
  for (const RankSource& src : s.ranks.sources())
    out.emplace_back(src.rank, src.rank == s.rank ? &s.model : s.ranks.peer(src.rank));
  return out;
}

std::vector<std::string> rank_file_problems(AppState& s) {
  if (s.ranks.single()) return {};
  std::vector<RankFileCheck> files;
  for (const RankSource& src : s.ranks.sources()) {
    RunModel* m = src.rank == s.rank ? &s.model : s.ranks.peer_if_open(src.rank);
    RankFileCheck f;
    f.rank = src.rank;
    f.name = src.name;
    if (m && m->status() == RunStatus::Open && m->info().loaded) f.recorded = rank_identity_of(m->info());
    files.push_back(std::move(f));
  }
  return rank_problems(files);
}

}  // namespace tvis::viewer
