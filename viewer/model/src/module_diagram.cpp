// A step's forward module calls as Replay's diagram tree (module_diagram.h).
#include "tvis/viewer_model/module_diagram.h"

#include <algorithm>

namespace tvis::viewer {

Diagram build_diagram(const StepPlan& plan) {
  Diagram d;
  std::vector<std::pair<int, int>> stack;  // (event depth, node index)
  for (size_t i = 0; i < plan.stops.size(); ++i) {
    const Stop& st = plan.stops[i];
    if (st.phase != schema::Phase::Forward || st.kind != schema::EventKind::ModuleCall) continue;
    while (!stack.empty() && stack.back().first >= st.depth) stack.pop_back();
    DiagramNode n;
    n.event = st.event;
    n.name = st.name;
    n.cls = st.cls;
    n.depth = static_cast<int>(stack.size());
    n.parent = stack.empty() ? -1 : stack.back().second;
    n.forward_stop = static_cast<int>(i);
    d.nodes.push_back(n);
    stack.push_back({st.depth, static_cast<int>(d.nodes.size()) - 1});
  }
  for (int i = static_cast<int>(d.nodes.size()) - 1; i >= 0; --i) {
    DiagramNode& n = d.nodes[i];
    n.end = std::max(n.end, i);
    if (n.parent >= 0) d.nodes[n.parent].end = std::max(d.nodes[n.parent].end, n.end);
  }
  for (size_t i = 0; i < plan.stops.size(); ++i)
    if (plan.stops[i].phase == schema::Phase::Backward)
      for (auto& n : d.nodes)
        if (n.event == plan.stops[i].event) n.backward_stop = static_cast<int>(i);
  // One call holding every other (the model itself): a title, not a box.
  int roots = 0;
  for (const auto& n : d.nodes) roots += n.parent < 0;
  if (roots == 1 && d.nodes.size() > 1 && d.nodes[0].end == static_cast<int>(d.nodes.size()) - 1) {
    d.root = d.nodes[0].name.empty() ? "(model)" : d.nodes[0].name;
    d.root_cls = d.nodes[0].cls;
    d.nodes.erase(d.nodes.begin());
    for (auto& n : d.nodes) {
      n.depth -= 1;
      n.parent = n.parent <= 0 ? -1 : n.parent - 1;
      n.end -= 1;
    }
  }
  return d;
}

const Diagram* ModuleDiagrams::at(int step) {
  auto it = diagrams_.find(step);
  if (it != diagrams_.end()) return &it->second;
  const StepPlan* plan = stops_.plan(step);
  if (!plan) return nullptr;
  return &diagrams_.emplace(step, build_diagram(*plan)).first->second;
}

}  // namespace tvis::viewer
