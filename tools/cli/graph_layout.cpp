#include "graph_layout.h"

#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <algorithm>
#include <cstdio>

// The dot layout, linked into tvis rather than found at run time through
// Graphviz's plugin configuration (config6a beside the plugins): the laptop
// wheel carries libgvc and this plugin in its own folder, where no
// configuration names them (tools/build_wheel).
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
