// embeddings_shown.h: what Insights → Embeddings shows, as plain values: the
// modules with vectors (forward order), whether a table is shown, the shown
// module's or table's points and PCA (EmbeddingCloud), and where each point
// lies in the scatter.
//
// Contract: embeddings_shown() reads the model and InsightsState and draws
// nothing. Like the drawing it settles the state on what can be shown (the
// tables when no module has vectors and back, depth and table within
// range) and keeps each cloud computed in EmbeddingsState::cache (computed
// once, when every vector is decoded; `loading` until then). The
// Embeddings view (embeddings_view.cpp) draws from these values, and
// embeddings_json() (embeddings_json.cpp) builds state().view from the same
// values when state() asks. Two facts only the drawing knows stay drawn
// geometry in EmbeddingsState: the scatter's box (`drawn`, from which
// scatter_point() gives each point's screen centre, the test surface's
// "screen") and the point under the mouse (`hovered`).
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "insights_state.h"

namespace tvis::viewer {

struct EmbeddingsShown {
  std::vector<std::string> modules;   // the modules with vectors, forward order
  bool tables = false;                // an nn.Embedding table is shown (st.embeddings.tables)
  std::string name;                   // the module or table shown ("" when there is none)
  EmbeddingCloud* cloud = nullptr;    // its points (nullptr when there is none)
  int followed = 0;                   // points of followed samples
};

/// The modules with vectors, in forward order (the depth slider's stops).
std::vector<std::string> embedding_modules(AppState& s);
/// The Embeddings sub-page's values.
EmbeddingsShown embeddings_shown(AppState& s, InsightsState& st);
/// The cloud of `module`'s rows, and of table `t`: EmbeddingsState::cache's,
/// computed once every vector is decoded (embeddings_cloud.cpp).
EmbeddingCloud& module_cloud(AppState& s, InsightsState& st, const std::string& module);
EmbeddingCloud& table_cloud(AppState& s, InsightsState& st, const EmbeddingTableEntry& t);

/// The scatter's frame: the PCA points' bounds and the box they are drawn in.
struct ScatterFrame {
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  EmbeddingsState::Box box;
};
ScatterFrame scatter_frame(const Pca2& pca, const EmbeddingsState::Box& box);
/// Point i's centre on screen, [x, y].
std::array<float, 2> scatter_point(const ScatterFrame& f, const Pca2& pca, int i);

/// state().view for the Embeddings sub-page (null while its cloud loads or has a problem).
nlohmann::json embeddings_json(AppState& s, InsightsState& st);

}  // namespace tvis::viewer
