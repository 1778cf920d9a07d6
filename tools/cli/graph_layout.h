// graph_layout.h: positions for a profile capture's graph, computed by
// Graphviz's `dot` through libgvc (Debian libgraphviz-dev) at capture time
// and stored in the run, so both viewers draw the same picture without a
// layout engine of their own. Top to bottom, in points, origin top-left.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tvis::cli {

struct LayoutNode {
  std::vector<std::string> lines;  // the label the viewer draws (sizes the box)
  bool input = false;              // a graph input (the layered layout ranks from these)
};

struct LayoutEdge {
  size_t from = 0, to = 0;  // indices into the nodes
};

struct NodeBox {
  float x = 0, y = 0, width = 0, height = 0;  // centre and size
};

struct GraphLayout {
  bool ok = false;
  std::string error;   // why not (one line)
  std::string engine;  // "graphviz dot 2.43.0"
  float width = 0, height = 0;
  std::vector<NodeBox> nodes;              // one per LayoutNode
  std::vector<std::vector<float>> edges;   // per LayoutEdge: x0, y0, x1, y1, ... (spline control points)
};

/// Above this many nodes dot's layout takes minutes (a full-size JAX
/// transformer's jaxpr has tens of thousands of equations): layout_graph then
/// ranks nodes by longest path itself and draws edges straight.
constexpr size_t kDotMaxNodes = 1500;

/// The box a label of `lines` needs in the viewers' font (points).
NodeBox label_size(const std::vector<std::string>& lines);

/// dot's layout, or the layered one past kDotMaxNodes; `engine` says which.
GraphLayout layout_graph(const std::vector<LayoutNode>& nodes, const std::vector<LayoutEdge>& edges);

}  // namespace tvis::cli
