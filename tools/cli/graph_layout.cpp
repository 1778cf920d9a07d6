#include "graph_layout.h"

#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

// The dot layout, linked into tvis rather than found at run time through
// Graphviz's plugin configuration (config6a beside the plugins): the laptop
// wheel carries libgvc and this plugin in its own folder, where no
// configuration names them (tools/wheel).
extern "C" gvplugin_library_t gvplugin_dot_layout_LTX_library;

namespace tvis::cli {

namespace {

// The one plugin tvis lays graphs out with; the list ends with {0, 0}.
const lt_symlist_t kBuiltinPlugins[] = {{"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
                                        {nullptr, nullptr}};

constexpr float kCharPt = 7.0f, kLinePt = 15.0f, kPadPt = 16.0f;

// Sets a per-object attribute declared with default `fallback`.
void set(void* obj, int kind, Agraph_t* g, const char* name, const std::string& value, const char* fallback) {
  agattr(g, kind, const_cast<char*>(name), const_cast<char*>(fallback));
  agsafeset(obj, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(fallback));
}

std::string inches(float pt) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", pt / 72.0f);
  return b;
}

constexpr float kGapX = 25.0f, kGapY = 40.0f;

// A layered layout for graphs too large for dot. Node ids are topological (an
// edge goes from a lower index to a higher one, as the capture emits them;
// others do not rank). A node reached from a graph input sits on the rank of
// its longest path from one; any other node (a parameter's reshape, a
// constant) one rank above its earliest consumer, so that parameter chains
// stand beside the layer that uses them. Left to right within a rank in index
// order; each edge a straight cubic from the bottom of its source to the top
// of its target.
std::vector<size_t> layer_ranks(const std::vector<LayoutNode>& nodes, const std::vector<LayoutEdge>& edges) {
  const size_t n = nodes.size();
  std::vector<std::vector<size_t>> succ(n), pred(n);
  for (const LayoutEdge& e : edges)
    if (e.from < e.to && e.to < n) succ[e.from].push_back(e.to), pred[e.to].push_back(e.from);
  std::vector<bool> reached(n, false);
  std::vector<int64_t> rank(n, 0);
  for (size_t v = 0; v < n; ++v) {  // predecessors have lower indices: final already
    reached[v] = nodes[v].input;
    for (size_t p : pred[v])
      if (reached[p]) reached[v] = true, rank[v] = std::max(rank[v], rank[p] + 1);
  }
  for (size_t v = n; v-- > 0;) {  // successors have higher indices: final already
    if (reached[v] || succ[v].empty()) continue;
    int64_t earliest = INT64_MAX;
    for (size_t s : succ[v]) earliest = std::min(earliest, rank[s]);
    rank[v] = earliest - 1;
  }
  const int64_t low = n ? *std::min_element(rank.begin(), rank.end()) : 0;
  std::vector<size_t> out(n);
  for (size_t v = 0; v < n; ++v) out[v] = static_cast<size_t>(rank[v] - low);
  return out;
}

GraphLayout layered_layout(const std::vector<LayoutNode>& nodes, const std::vector<LayoutEdge>& edges) {
  GraphLayout out;
  const size_t n = nodes.size();
  const std::vector<size_t> rank = layer_ranks(nodes, edges);
  const size_t ranks = n ? *std::max_element(rank.begin(), rank.end()) + 1 : 0;
  std::vector<float> row_height(ranks, 0.0f), row_width(ranks, 0.0f), row_y(ranks, 0.0f);
  out.nodes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const NodeBox b = label_size(nodes[i].lines);
    NodeBox& o = out.nodes[i];
    o.width = b.width, o.height = b.height;
    o.x = row_width[rank[i]] + b.width / 2;
    row_width[rank[i]] += b.width + kGapX;
    row_height[rank[i]] = std::max(row_height[rank[i]], b.height);
  }
  float y = 0.0f;
  for (size_t r = 0; r < ranks; ++r) row_y[r] = y, y += row_height[r] + kGapY;
  for (size_t i = 0; i < n; ++i) out.nodes[i].y = row_y[rank[i]] + row_height[rank[i]] / 2;
  out.width = ranks ? *std::max_element(row_width.begin(), row_width.end()) : 0.0f;
  out.height = y;
  for (const LayoutEdge& e : edges) {
    std::vector<float> pts;
    if (e.from < n && e.to < n) {
      const NodeBox &a = out.nodes[e.from], &b = out.nodes[e.to];
      const float x0 = a.x, y0 = a.y + a.height / 2, x3 = b.x, y3 = b.y - b.height / 2;
      pts = {x0, y0, x0 + (x3 - x0) / 3, y0 + (y3 - y0) / 3, x0 + 2 * (x3 - x0) / 3, y0 + 2 * (y3 - y0) / 3, x3, y3};
    }
    out.edges.push_back(std::move(pts));
  }
  out.engine = "tvis layered (" + std::to_string(n) + " nodes: more than dot's " + std::to_string(kDotMaxNodes) + ")";
  out.ok = true;
  return out;
}

}  // namespace

NodeBox label_size(const std::vector<std::string>& lines) {
  size_t chars = 4;
  for (const auto& l : lines) chars = std::max(chars, l.size());
  NodeBox b;
  b.width = static_cast<float>(chars) * kCharPt + kPadPt;
  b.height = static_cast<float>(std::max<size_t>(lines.size(), 1)) * kLinePt + kPadPt * 0.75f;
  return b;
}

GraphLayout layout_graph(const std::vector<LayoutNode>& nodes, const std::vector<LayoutEdge>& edges) {
  if (nodes.size() > kDotMaxNodes) return layered_layout(nodes, edges);
  GraphLayout out;
  GVC_t* gvc = gvContextPlugins(kBuiltinPlugins, /*demand_loading=*/0);
  if (!gvc) {
    out.error = "libgvc: no Graphviz context";
    return out;
  }
  Agraph_t* g = agopen(const_cast<char*>("capture"), Agdirected, nullptr);
  agsafeset(g, const_cast<char*>("rankdir"), const_cast<char*>("TB"), const_cast<char*>(""));
  agsafeset(g, const_cast<char*>("nodesep"), const_cast<char*>("0.35"), const_cast<char*>(""));
  agsafeset(g, const_cast<char*>("ranksep"), const_cast<char*>("0.55"), const_cast<char*>(""));
  std::vector<Agnode_t*> gn;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string name = "n" + std::to_string(i);
    Agnode_t* n = agnode(g, const_cast<char*>(name.c_str()), 1);
    const NodeBox size = label_size(nodes[i].lines);
    set(n, AGNODE, g, "shape", "box", "ellipse");
    set(n, AGNODE, g, "fixedsize", "true", "false");
    set(n, AGNODE, g, "label", "", "\\N");
    set(n, AGNODE, g, "width", inches(size.width), "0.75");
    set(n, AGNODE, g, "height", inches(size.height), "0.5");
    gn.push_back(n);
  }
  std::vector<Agedge_t*> ge;
  for (size_t i = 0; i < edges.size(); ++i) {
    const std::string name = "e" + std::to_string(i);
    ge.push_back(edges[i].from < gn.size() && edges[i].to < gn.size()
                     ? agedge(g, gn[edges[i].from], gn[edges[i].to], const_cast<char*>(name.c_str()), 1)
                     : nullptr);
  }
  if (gvLayout(gvc, g, "dot") != 0) {
    out.error = "graphviz: the dot layout failed";
    agclose(g);
    gvFreeContext(gvc);
    return out;
  }
  const boxf bb = GD_bb(g);
  const float top = static_cast<float>(bb.UR.y);
  out.width = static_cast<float>(bb.UR.x - bb.LL.x);
  out.height = static_cast<float>(bb.UR.y - bb.LL.y);
  for (Agnode_t* n : gn)
    out.nodes.push_back({static_cast<float>(ND_coord(n).x - bb.LL.x), top - static_cast<float>(ND_coord(n).y),
                         static_cast<float>(ND_width(n) * 72.0), static_cast<float>(ND_height(n) * 72.0)});
  for (Agedge_t* e : ge) {
    std::vector<float> pts;
    if (e && ED_spl(e) && ED_spl(e)->size > 0) {
      const bezier& b = ED_spl(e)->list[0];
      for (size_t k = 0; k < b.size; ++k)
        pts.push_back(static_cast<float>(b.list[k].x - bb.LL.x)), pts.push_back(top - static_cast<float>(b.list[k].y));
      if (b.eflag) pts.push_back(static_cast<float>(b.ep.x - bb.LL.x)), pts.push_back(top - static_cast<float>(b.ep.y));
    }
    out.edges.push_back(std::move(pts));
  }
  out.engine = std::string("graphviz dot ") + gvcVersion(gvc);
  out.ok = true;
  gvFreeLayout(gvc, g);
  agclose(g);
  gvFreeContext(gvc);
  return out;
}

}  // namespace tvis::cli
