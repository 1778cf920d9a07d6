// embeddings_json.cpp: embeddings_json() (embeddings_shown.h): state().view
// of the Embeddings sub-page, from embeddings_shown()'s values: the cloud's
// points, labels (numbers where a label is one), samples, steps, rows,
// counts, explained variance and PCA time, the table flag, modules and
// depth; "screen" (each point's centre as drawn: scatter_point() over the
// drawn box, [] before one is drawn) and "hovered" (the drawing's).
#include <algorithm>

#include "embeddings_shown.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

json label_json(const std::string& l) {
  if (!l.empty() && l.size() < 18 && std::all_of(l.begin(), l.end(), [](char ch) { return (ch >= '0' && ch <= '9') || ch == '-'; }) &&
      l != "-")
    return std::stoll(l);
  return l;
}

json cloud_json(const EmbeddingCloud& c, const std::string& module, int step, int followed) {
  json points = json::array(), labels = json::array();
  for (int i = 0; i < c.pca.n; ++i) {
    points.push_back({c.pca.points[i * 2], c.pca.points[i * 2 + 1]});
    labels.push_back(label_json(c.labels[i]));
  }
  return {{"module", module},         {"step", step},           {"points", points},
          {"labels", labels},         {"samples", c.samples},   {"steps", c.steps},
          {"rows", c.rows},           {"count", c.pca.n},       {"followed_count", followed},
          {"recorded", c.recorded < 0 ? c.pca.n : c.recorded},
          {"explained", {c.pca.explained[0], c.pca.explained[1]}}, {"pca_ms", c.ms}};
}

json screen_json(const EmbeddingCloud& c, const EmbeddingsState::Box& box) {
  json screen = json::array();
  if (!box.drawn) return screen;
  const ScatterFrame f = scatter_frame(c.pca, box);
  for (int i = 0; i < c.pca.n; ++i) {
    const std::array<float, 2> q = scatter_point(f, c.pca, i);
    screen.push_back({q[0], q[1]});
  }
  return screen;
}

}  // namespace

json embeddings_json(AppState& s, InsightsState& st) {
  const EmbeddingsShown v = embeddings_shown(s, st);
  if (!v.cloud || v.cloud->loading || !v.cloud->problem.empty()) return nullptr;
  const EmbeddingsState& em = st.embeddings;
  json out = cloud_json(*v.cloud, v.name, s.selection.step, v.followed);
  out["table"] = v.tables;
  out["modules"] = v.modules;
  out["depth"] = em.depth;
  out["screen"] = screen_json(*v.cloud, em.drawn);
  out["hovered"] = em.hovered >= 0 ? json(em.hovered) : json();
  return out;
}

}  // namespace tvis::viewer
