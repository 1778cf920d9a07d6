// module_diagram.h: a step's forward module calls as a tree, what Replay's
// model diagram draws: one node per forward module call in call order
// (pre-order), each with its parent, the last node inside it and its stops
// in forward and backward. One call holding every other (the model itself)
// is the diagram's title, not a node.
//
// Contract: non-blocking, like StepStops: at(step) is nullptr while the
// step's plan loads; a diagram is built once from the plan and kept until
// another run opens. Owned by the RunModel (RunModel::diagrams()).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tvis/viewer_model/step_stops.h"

namespace tvis::viewer {

struct DiagramNode {
  uint64_t event = 0;
  std::string name, cls;
  int depth = 0;             // module nesting (0: top level, below the root model)
  int parent = -1;           // node index
  int end = 0;               // index of the last node inside it (itself when a leaf)
  int forward_stop = -1;     // its stop index in forward
  int backward_stop = -1;    // and in backward
};

struct Diagram {
  std::vector<DiagramNode> nodes;  // pre-order (call order)
  std::string root;                // the whole model's call when one holds them all ("" otherwise)
  std::string root_cls;
  /// `node` lies inside `container` (both node indices).
  bool contains(int container, int node) const { return node > container && node <= nodes[container].end; }
};

/// The diagram of one step's plan (tests call it directly).
Diagram build_diagram(const StepPlan& plan);

class ModuleDiagrams {
 public:
  explicit ModuleDiagrams(StepStops& stops) : stops_(stops) {}
  void reset() { diagrams_.clear(); }
  /// The diagram of `step`, or nullptr while its plan loads (asks for it).
  const Diagram* at(int step);

 private:
  StepStops& stops_;
  std::map<int, Diagram> diagrams_;
};

}  // namespace tvis::viewer
