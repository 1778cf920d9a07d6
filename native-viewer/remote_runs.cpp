#include "remote_runs.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tvis/remote/store_source.h"

namespace tvis::native {

namespace {

using nlohmann::json;
using Opener = std::function<format::Result<std::shared_ptr<format::ByteSource>>()>;

Opener opener(const std::shared_ptr<remote::RunStore>& store, const std::string& path) {
  return [store, path] { return remote::open_store_source(store, path); };
}

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// A catalog card's rank files as the App takes them; empty for a run of one file.
std::vector<viewer::RankSource> card_ranks(const std::shared_ptr<remote::RunStore>& store, const json& card) {
  std::vector<viewer::RankSource> out;
  const json files = card.value("rank_files", json::array());
  if (!files.is_array() || files.size() < 2) return out;
  for (size_t rank = 0; rank < files.size(); ++rank) {
    const std::string path = files[rank].is_string() ? files[rank].get<std::string>() : "";
    out.push_back({static_cast<int>(rank), file_name(path), opener(store, path)});
  }
  return out;
}

}  // namespace

bool names_remote_runs(const std::string& what) {
  std::error_code ec;
  if (std::filesystem::exists(what, ec)) return false;
  return remote::classify_store_argument(what).kind != remote::StoreTarget::Kind::Local;
}

std::shared_ptr<remote::OpenedStore> open_remote_runs(viewer::App& app, const remote::StoreRequest& request, int rank,
                                                      std::string* problem) {
  auto opened = remote::open_store(request);
  if (!opened.ok) {
    *problem = opened.error;
    return nullptr;
  }
  const auto& store = opened.value->store;
  auto listed = store->list();
  const json cards = listed.ok ? json::parse(listed.value, nullptr, false) : json();
  if (!listed.ok || !cards.is_array()) {
    *problem = store->describe() + ": " + (listed.ok ? "the run list is not JSON" : listed.error);
    return nullptr;
  }
  if (cards.empty()) {
    *problem = store->describe() + ": no runs there";
    return nullptr;
  }
  // One card whose path has no folder: PATH named the run itself.
  const std::string first = cards[0].value("path", "");
  if (cards.size() == 1 && first.find('/') == std::string::npos) {
    auto ranks = card_ranks(store, cards[0]);
    if (!ranks.empty()) {
      app.open_ranks(std::move(ranks), rank >= 0 ? rank : 0);
    } else {
      auto source = remote::open_store_source(store, first);
      if (source.ok())
        app.open(source.value());
      else
        app.show_error(source.status().message);
    }
    return opened.value;
  }
  std::vector<viewer::RunListEntry> runs;
  for (const auto& card : cards) {
    const std::string path = card.value("path", "");
    runs.push_back({card.value("name", path), opener(store, path), card_ranks(store, card)});
  }
  app.open_run_list(std::move(runs));
  return opened.value;
}

}  // namespace tvis::native
