// ranks.h: a distributed run in the viewer: one rank shown at a time (the
// App's RunModel reads that rank's file), the others at hand for the pages
// that show ranks side by side (Loss, Weights) through RankSet's peers.
//
// Switching rank opens the other rank's file in the App's model and carries
// the position over as a link (link.h) applied once it is open: the page,
// the step, the selected call (event ids are per rank: kept where the rank
// has that id), the followed sample, Weights' parameter, view and tab and
// Loss's backward. The link key `rank` (browser `?rank=K`, tvis-view
// `--rank K`) and the command {"rank": K} switch rank the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tvis/viewer_model/rank_comparison.h"
#include "tvis/viewer_model/rank_set.h"

namespace tvis::viewer {

struct AppState;

/// Opens `sources` (two or more) as one run showing `shown_rank` (the first
/// rank when it is absent); fewer than two: the one file as a plain run.
void open_rank_set(AppState& s, std::vector<RankSource> sources, int shown_rank);
/// Asks for rank `rank` in place of the shown one, keeping the position (see
/// above); `extra` is more of a link, applied with it. The switch happens at
/// the start of the next frame (apply_rank_request), so no page draws half a
/// frame over a model reopened under it. False when the run has no such rank.
bool switch_rank(AppState& s, int rank, const nlohmann::json& extra = nlohmann::json::object());
/// Performs the switch asked for, if any (App::frame, before anything is drawn).
void apply_rank_request(AppState& s);
/// {"rank": K}: switch_rank; null for other commands.
nlohmann::json rank_command(AppState& s, const nlohmann::json& cmd);

/// The ranks the run has: the rank files of a distributed run, or the one
/// run (its recorded rank, 0 when it records none).
int rank_count(const AppState& s);
/// The shown rank's number: AppState::rank, or for a single file the rank
/// its metadata records (0 when none).
int shown_rank(AppState& s);
/// Every rank's model by rank (the shown rank's is AppState::model; the
/// others' peers are opened by this call). One entry for a run of one file.
std::vector<RankModel> rank_models(AppState& s);
/// What is wrong with the rank files, as far as the opened ones tell
/// (rank_problems()).
std::vector<std::string> rank_file_problems(AppState& s);

/// The top bar's rank picker ("rank [K] of N"); nothing for a single file.
void draw_rank_picker(AppState& s);

}  // namespace tvis::viewer
