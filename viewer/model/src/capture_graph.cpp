// A ProfileCapture record copied into the plain graph (capture_graph.h).
#include "tvis/viewer_model/capture_graph.h"
#include "tvis/format/fb_string.h"

namespace tvis::viewer {

namespace {

using format::str;

std::vector<int64_t> longs(const flatbuffers::Vector<int64_t>* v) {
  return v ? std::vector<int64_t>(v->begin(), v->end()) : std::vector<int64_t>{};
}

std::vector<CaptureOperand> operands(const flatbuffers::Vector<flatbuffers::Offset<schema::Operand>>* v) {
  std::vector<CaptureOperand> out;
  if (v)
    for (const auto* o : *v) out.push_back({str(o->name()), longs(o->shape()), str(o->dtype())});
  return out;
}

CaptureNode node_of(const schema::GraphNode& n) {
  CaptureNode out;
  out.id = n.id();
  out.op = str(n.op());
  out.module = str(n.module_());
  out.x = n.x();
  out.y = n.y();
  out.width = n.width();
  out.height = n.height();
  out.failed = n.failed();
  out.inputs = operands(n.input_shapes());
  out.outputs = operands(n.output_shapes());
  return out;
}

CaptureFile file_of(const schema::FileIdentity& f) {
  CaptureFile out;
  out.role = str(f.role());
  out.path = str(f.path());
  out.name = str(f.name());
  out.resolved = str(f.resolved());
  out.present = f.present();
  out.size = f.size();
  out.mtime_ns = f.mtime_ns();
  out.inode = f.inode();
  out.xxh64 = f.xxh64();
  return out;
}

}  // namespace

const CaptureNode* CaptureGraph::node(uint32_t id) const {
  for (const CaptureNode& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

const CaptureNode* CaptureGraph::failed() const {
  if (failed_node) return node(failed_node);
  for (const CaptureNode& n : nodes)
    if (n.failed) return &n;
  return nullptr;
}

CaptureGraph capture_graph(const schema::ProfileCapture& c) {
  CaptureGraph g;
  g.profile = str(c.profile());
  g.model = str(c.model());
  g.source = str(c.source());
  g.stage = str(c.stage());
  g.label = str(c.label());
  g.automatic = str(c.automatic());
  g.layout = str(c.layout());
  g.ok = c.ok();
  g.partial = c.partial();
  g.truncated = c.truncated();
  g.failed_node = c.failed_node();
  g.width = c.graph_width();
  g.height = c.graph_height();
  g.outputs = operands(c.outputs());
  if (c.diagnostics())
    for (const auto* d : *c.diagnostics()) g.diagnostics.push_back({str(d->kind()), str(d->message())});
  if (c.nodes())
    for (const auto* n : *c.nodes()) g.nodes.push_back(node_of(*n));
  if (c.edges())
    for (const auto* e : *c.edges()) {
      CaptureEdge edge{longs(e->shape()), str(e->dtype()), {}};
      if (e->points()) edge.points.assign(e->points()->begin(), e->points()->end());
      g.edges.push_back(std::move(edge));
    }
  g.has_evidence = c.evidence() != nullptr;
  if (c.evidence())
    for (const auto* f : *c.evidence()) g.evidence.push_back(file_of(*f));
  return g;
}

}  // namespace tvis::viewer
