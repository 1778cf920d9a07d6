// embeddings_shown.cpp: embeddings_shown(), embedding_modules() and the
// scatter's geometry (embeddings_shown.h).
#include "embeddings_shown.h"

#include <algorithm>

namespace tvis::viewer {

namespace {

constexpr float kScatterPad = 14;  // between the scatter's box and its outermost points

}  // namespace

std::vector<std::string> embedding_modules(AppState& s) {
  std::vector<std::string> out;
  for (const EmbeddingEntry& e : s.model.insights().embeddings())
    if (std::find(out.begin(), out.end(), e.module) == out.end()) out.push_back(e.module);
  return out;
}

EmbeddingsShown embeddings_shown(AppState& s, InsightsState& st) {
  EmbeddingsState& em = st.embeddings;
  EmbeddingsShown out;
  out.modules = embedding_modules(s);
  const auto& tables = s.model.insights().tables();
  if (out.modules.empty()) em.tables = true;
  if (tables.empty()) em.tables = false;
  out.tables = em.tables;
  if (!em.tables && !out.modules.empty()) {
    em.depth = std::clamp(em.depth, 0, static_cast<int>(out.modules.size()) - 1);
    out.name = out.modules[em.depth];
    out.cloud = &module_cloud(s, st, out.name);
  } else if (em.tables && !tables.empty()) {
    em.table = std::clamp(em.table, 0, static_cast<int>(tables.size()) - 1);
    out.name = tables[em.table].module;
    out.cloud = &table_cloud(s, st, tables[em.table]);
  }
  if (out.cloud)
    for (int v : out.cloud->samples) out.followed += v >= 0;
  return out;
}

ScatterFrame scatter_frame(const Pca2& pca, const EmbeddingsState::Box& box) {
  ScatterFrame f;
  f.box = box;
  for (int i = 0; i < pca.n; ++i)
    for (int k = 0; k < 2; ++k) {
      f.lo[k] = std::min(f.lo[k], pca.points[i * 2 + k]);
      f.hi[k] = std::max(f.hi[k], pca.points[i * 2 + k]);
    }
  return f;
}

std::array<float, 2> scatter_point(const ScatterFrame& f, const Pca2& pca, int i) {
  const double fx = f.hi[0] > f.lo[0] ? (pca.points[i * 2] - f.lo[0]) / (f.hi[0] - f.lo[0]) : 0.5;
  const double fy = f.hi[1] > f.lo[1] ? (pca.points[i * 2 + 1] - f.lo[1]) / (f.hi[1] - f.lo[1]) : 0.5;
  const float side = f.box.side, y1 = f.box.y + side;
  return {f.box.x + kScatterPad + static_cast<float>(fx) * (side - 2 * kScatterPad),
          y1 - kScatterPad - static_cast<float>(fy) * (side - 2 * kScatterPad)};
}

}  // namespace tvis::viewer
