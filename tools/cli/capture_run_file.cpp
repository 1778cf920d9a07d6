#include "capture_run_file.h"

#include <unistd.h>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_pack.h"
#include "tvis/format/run_writer.h"
#include "tvis/profiles/shape_diagnostics.h"
#include "tvis/schema/recording_generated.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace {

namespace sc = tvis::schema;

std::unique_ptr<sc::OperandT> operand(const profiles::Operand& o) {
  auto p = std::make_unique<sc::OperandT>();
  p->name = o.name;
  p->shape = o.shape;
  p->dtype = o.dtype;
  return p;
}

std::vector<std::unique_ptr<sc::OperandT>> operands(const std::vector<profiles::Operand>& ops) {
  std::vector<std::unique_ptr<sc::OperandT>> v;
  for (const auto& o : ops) v.push_back(operand(o));
  return v;
}

std::unique_ptr<sc::KeyValueT> kv(const std::string& k, const std::string& v) {
  auto p = std::make_unique<sc::KeyValueT>();
  p->key = k;
  p->value = v;
  return p;
}

// "module:Linear" -> "Linear"; the op itself otherwise.
std::string op_label(const std::string& op) { return op.rfind("module:", 0) == 0 ? op.substr(7) : op; }

// Index of node id in c.nodes, or -1.
long index_of(const profiles::Capture& c, uint32_t id) {
  for (size_t i = 0; i < c.nodes.size(); ++i)
    if (c.nodes[i].id == id) return static_cast<long>(i);
  return -1;
}

struct EdgeRef {
  size_t node, input;  // c.nodes[node].inputs[input]
};

std::vector<EdgeRef> captured_edges(const profiles::Capture& c) {
  std::vector<EdgeRef> out;
  for (size_t i = 0; i < c.nodes.size(); ++i)
    for (size_t k = 0; k < c.nodes[i].inputs.size(); ++k)
      if (index_of(c, c.nodes[i].inputs[k].from) >= 0) out.push_back({i, k});
  return out;
}

sc::ChunkT meta_chunk(const profiles::Capture& c, const CaptureRunInfo& info) {
  sc::RunMetaT m;
  m.kind = sc::RunKind::ProfileCapture;
  m.script = c.model;
  m.argv = info.argv;
  m.cwd = info.workspace;
  m.project_dir = info.workspace;
  m.python_version = c.python_version;
  m.torch_version = c.torch_version;
  m.device = info.device;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  m.hostname = host;
  m.started_unix_ms = info.started_unix_ms;
  m.finished_unix_ms = info.finished_unix_ms;
  m.complete = true;
  m.exit_code = c.exit_code();
  if (!c.ok && !c.diagnostics.empty()) m.exception = c.diagnostics[0].message;
  m.options.push_back(kv("profile", c.profile));
  m.options.push_back(kv("source", c.source));
  sc::ChunkT chunk;
  chunk.body.Set(std::move(m));
  return chunk;
}

sc::ProfileCaptureT capture_table(const profiles::Capture& c, const GraphLayout& layout) {
  sc::ProfileCaptureT p;
  p.profile = c.profile;
  p.model = c.model;
  p.ok = c.ok;
  p.stage = c.stage;
  p.setup.push_back(kv("python", c.python));
  p.setup.push_back(kv("timeout_ms", std::to_string(c.timeout_ms)));
  p.partial = c.partial;
  p.outputs = operands(c.outputs);
  p.inputs = operands(c.inputs);
  for (const auto& d : c.diagnostics) {
    auto dp = std::make_unique<sc::DiagnosticT>();
    dp->kind = d.kind;
    dp->message = d.message;
    dp->field = d.field;
    dp->operands = operands(d.operands);
    p.diagnostics.push_back(std::move(dp));
  }
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    const auto& n = c.nodes[i];
    auto g = std::make_unique<sc::GraphNodeT>();
    g->id = n.id;
    g->op = n.op;
    g->module_ = n.module;
    g->output_shapes = operands(n.outputs);
    g->failed = n.failed || n.id == c.failed_node;
    for (const auto& e : n.inputs) {
      if (e.from) g->inputs.push_back(e.from);
      g->input_shapes.push_back(operand({e.name, e.shape, e.dtype}));
    }
    if (layout.ok && i < layout.nodes.size())
      g->x = layout.nodes[i].x, g->y = layout.nodes[i].y, g->width = layout.nodes[i].width, g->height = layout.nodes[i].height;
    p.nodes.push_back(std::move(g));
  }
  const auto refs = captured_edges(c);
  for (size_t k = 0; k < refs.size(); ++k) {
    const auto& e = c.nodes[refs[k].node].inputs[refs[k].input];
    auto r = std::make_unique<sc::GraphEdgeRecordT>();
    r->from_node = e.from;
    r->to_node = c.nodes[refs[k].node].id;
    r->name = e.name;
    r->shape = e.shape;
    r->dtype = e.dtype;
    if (layout.ok && k < layout.edges.size()) r->points = layout.edges[k];
    p.edges.push_back(std::move(r));
  }
  p.label = c.label;
  p.source = c.source;
  p.automatic = c.automatic;
  p.failed_node = c.failed_node;
  p.truncated = c.truncated;
  p.log = c.log;
  p.layout = layout.ok ? layout.engine : "none: " + layout.error;
  p.graph_width = layout.width;
  p.graph_height = layout.height;
  for (const auto& f : c.evidence) {
    auto id = std::make_unique<sc::FileIdentityT>();
    id->role = f.role, id->path = f.path, id->name = f.name, id->present = f.present, id->resolved = f.resolved;
    id->size = f.size, id->mtime_ns = f.mtime_ns, id->inode = f.inode, id->xxh64 = f.xxh64;
    p.evidence.push_back(std::move(id));
  }
  p.interpreter_origin = c.interpreter_origin;
  p.interpreter_version = c.interpreter_version;
  return p;
}

}  // namespace

void capture_layout_input(const profiles::Capture& c, std::vector<LayoutNode>* nodes, std::vector<LayoutEdge>* edges) {
  for (const auto& n : c.nodes) {
    LayoutNode l;
    l.input = n.op == "input";
    l.lines.push_back(n.module.empty() ? op_label(n.op) : n.module);
    l.lines.push_back(op_label(n.op));
    for (size_t i = 0; i < n.outputs.size() && i < 2; ++i) l.lines.push_back(profiles::shape_text(n.outputs[i].shape) + " " + n.outputs[i].dtype);
    nodes->push_back(std::move(l));
  }
  for (const auto& r : captured_edges(c))
    edges->push_back({static_cast<size_t>(index_of(c, c.nodes[r.node].inputs[r.input].from)), r.node});
}

std::string write_capture_run(const profiles::Capture& c, const GraphLayout& layout, const CaptureRunInfo& info,
                              const std::string& run_file) {
  auto w = format::RunWriter::create(run_file);
  if (!w.ok()) return w.status().message;
  format::RunWriter& writer = *w.value();
  format::ChunkInfo meta_info;
  meta_info.kind = static_cast<uint16_t>(format::ChunkKind::RunMeta);
  writer.append(meta_info, format::pack_chunk(meta_chunk(c, info)));
  sc::ChunkT chunk;
  sc::ProfileCaptureT table = capture_table(c, layout);
  if (!info.request.is_null()) table.request = tvis::safe_json::text(info.request);
  if (!info.report.is_null()) table.report = tvis::safe_json::text(info.report);
  chunk.body.Set(std::move(table));
  format::ChunkInfo capture_info;
  capture_info.kind = static_cast<uint16_t>(format::ChunkKind::ProfileCapture);
  writer.append(capture_info, format::pack_chunk(chunk));
  const format::Status st = writer.finalize();
  return st.is_ok() ? "" : st.message;
}

}  // namespace tvis::cli
