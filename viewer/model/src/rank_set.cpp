#include "tvis/viewer_model/rank_set.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace {

// An option's value as recorded: "1", or a Python repr "'gloo'".
std::string unquoted(std::string v) {
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return v;
}

int as_int(const std::string& v) {
  if (v.empty() || v.size() > 9) return -1;
  for (char c : v)
    if (c < '0' || c > '9') return -1;
  return std::atoi(v.c_str());
}

}  // namespace

RankIdentity rank_identity_of(const RunInfo& info) {
  RankIdentity id;
  id.hostname = info.hostname;
  for (const auto& [key, raw] : info.options) {
    const std::string v = unquoted(raw);
    if (key == "rank") id.rank = as_int(v);
    else if (key == "world_size") id.world_size = as_int(v);
    else if (key == "launcher") id.launcher = v;
    else if (key == "backend") id.backend = v;
  }
  return id;
}

std::vector<std::string> rank_problems(const std::vector<RankFileCheck>& files) {
  std::vector<std::string> out;
  std::set<int> ranks;
  int world = -1;
  for (const RankFileCheck& f : files) {
    const int rank = f.rank;
    const RankIdentity& id = f.recorded;
    const std::string& name = f.name;
    ranks.insert(rank);
    if (id.rank >= 0 && id.rank != rank)
      out.push_back(name + " records rank " + std::to_string(id.rank) + ", not rank " + std::to_string(rank));
    if (id.world_size > 0) {
      if (world > 0 && id.world_size != world)
        out.push_back(name + " records a world size of " + std::to_string(id.world_size) + ", the others " +
                      std::to_string(world));
      world = std::max(world, id.world_size);
    }
  }
  if (world > 0) {
    std::string missing;
    for (int r = 0; r < world; ++r)
      if (!ranks.count(r)) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    if (!missing.empty()) out.push_back("no file of rank " + missing + " (world size " + std::to_string(world) + ")");
    if (!ranks.empty() && *ranks.rbegin() >= world)
      out.push_back("a file of rank " + std::to_string(*ranks.rbegin()) + " lies beyond the world size of " +
                    std::to_string(world));
  }
  return out;
}

RankSet::RankSet(uint64_t peer_cache_budget) : budget_(peer_cache_budget) {}
RankSet::~RankSet() = default;

void RankSet::reset(std::vector<RankSource> sources) {
  peers_.clear();
  sources_ = std::move(sources);
  std::stable_sort(sources_.begin(), sources_.end(),
                   [](const RankSource& a, const RankSource& b) { return a.rank < b.rank; });
}

const RankSource* RankSet::source_of(int rank) const {
  for (const auto& s : sources_)
    if (s.rank == rank) return &s;
  return nullptr;
}

RunModel* RankSet::peer_if_open(int rank) const {
  auto it = peers_.find(rank);
  return it == peers_.end() ? nullptr : it->second.get();
}

RunModel* RankSet::peer(int rank) {
  if (RunModel* m = peer_if_open(rank)) return m;
  const RankSource* src = source_of(rank);
  if (!src) return nullptr;
  auto model = std::make_unique<RunModel>(budget_);
  model->set_decode_in_background(decode_in_background_);
  auto source = src->open ? src->open()
                          : format::Result<std::shared_ptr<format::ByteSource>>(
                                format::Status::error(format::ErrorCode::Io, "no source"));
  if (source.ok()) model->open(source.value());
  else model->fail(src->name + ": " + source.status().message);
  RunModel* out = model.get();
  peers_[rank] = std::move(model);
  return out;
}

void RankSet::begin_frame(uint64_t frame_decode_bytes) {
  // The peers share one frame's budget: N ranks side by side cost a frame
  // what one more rank does.
  const uint64_t share = std::max<uint64_t>(frame_decode_bytes / std::max<size_t>(1, peers_.size()), 64u << 10);
  for (auto& [rank, m] : peers_)
    if (m->status() == RunStatus::Open) {
      m->cache().begin_frame(share);
      m->info();
    }
}

bool RankSet::loading() const {
  for (const auto& [rank, m] : peers_) {
    if (m->status() == RunStatus::Opening) return true;
    const ChunkCache* cache = m->cache_if_open();
    if (cache && cache->in_flight() > 0) return true;
  }
  return false;
}

}  // namespace tvis::viewer
