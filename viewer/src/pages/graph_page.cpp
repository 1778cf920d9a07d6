// Graph: a profile capture (`tvis graph`) as the graph of its module calls.
// Present only for runs holding a ProfileCapture chunk, and then the first
// tab (the default page of a capture). Nodes sit where Graphviz dot placed
// them at capture time (stored in the run; no layout happens here); edges
// carry the tensor's shape and dtype. Drag to pan, wheel to zoom, click a
// node for its inputs and outputs in the inspector. A failed forward shows
// its diagnostic above the graph, the failing call in the error colour, and
// the label that the graph is evidence from that input only.
//
// Freshness (docs/profiles.md "Freshness"): a capture records the files it
// depended on; the shell's recheck_files (tvis-view: stat + xxh64 of each)
// says whether they changed, when the capture arrives and whenever the page
// is shown again after another page or run. A stale capture gets a banner
// naming what changed ("stale: audit_models.py changed since capture") and
// state().view.stale true with its reasons; the browser, which cannot see
// the files, takes {"freshness": {checked, stale, reasons}} as a command.
//
// Setup (docs/profiles.md "The setup form"): a run opened by `tvis graph
// --setup`'s form carries the link keys setup_class and setup_profile; in a
// shell that can go to a URL (AppOptions::open_url: the browser) the banner
// then has "Change inputs" (or "Set up..." when the capture failed before
// its forward), which opens the form for that profile. Without the keys, or
// in tvis-view, nothing is shown.
//
// State: kept here per AppState and replaced when another run opens (the
// Selection's run generation), so the page needs no field in AppState.
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "tvis/links/page_names.h"
#include "../app_state.h"
#include "../page.h"
#include "../theme.h"

namespace tvis::viewer {

using nlohmann::json;

// The Graph page's own state (its PageState), replaced when another run opens.
struct GraphState : PageState {
  bool capture_seen = false;  // the capture arrived and its evidence was rechecked
  float zoom = 1.0f;
  ImVec2 pan{0, 0};
  bool fitted = false;
  uint32_t selected = 0;  // node id, 0 = none
  json boxes = json::array();  // the last frame's node boxes on screen: [{module, x, y, w, h}] (tests click them)
  json pending;           // a selection asked for while the capture still loads (the browser reads asynchronously)
  json freshness;         // {checked, stale, reasons}; null: not checked
  int drawn_frame = -2;   // ImGui frame of the last draw: a gap means the page is shown again
  std::string setup_class, setup_profile;  // link keys of a run made by the setup form ("" = none)
  json setup_button;      // its rect on screen, last frame: {x, y, w, h}; null when not drawn
};

extern const PageSpec kGraphPage;

namespace {

bool select_node(GraphState& g, const CaptureGraph* c, const json& cmd);
void recheck(AppState& s, GraphState& g, const CaptureGraph* c);

GraphState& graph_state(AppState& s) { return page_state<GraphState>(s, kGraphPage); }

std::unique_ptr<PageState> make_graph_state(AppState&) { return std::make_unique<GraphState>(); }

bool has_capture(AppState& s) { return s.model.profile_capture().present(); }

// The run's (first) ProfileCapture; nullptr while it loads or when it failed.
const CaptureGraph* capture_of(AppState& s, GraphState& g) {
  const CaptureGraph* c = s.model.profile_capture().graph();
  if (c && !g.capture_seen) {
    g.capture_seen = true;
    recheck(s, g, c);  // the capture arrived: is its evidence still what it was?
  }
  if (c && !g.pending.is_null()) {
    select_node(g, c, g.pending);
    g.pending = nullptr;
  }
  return c;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string t = "[";
  for (size_t i = 0; i < shape.size(); ++i) t += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return t + "]";
}

std::string operand_text(const CaptureOperand& o) { return shape_text(o.shape) + " " + o.dtype; }

std::string op_label(const std::string& op) { return op.rfind("module:", 0) == 0 ? op.substr(7) : op; }

// The capture's recorded evidence as recheck_files takes it.
json evidence_json(const CaptureGraph* c) {
  json a = json::array();
  for (const CaptureFile& f : c->evidence)
    a.push_back({{"role", f.role}, {"path", f.path}, {"name", f.name}, {"present", f.present},
                 {"resolved", f.resolved}, {"size", f.size}, {"mtime_ns", f.mtime_ns},
                 {"inode", f.inode}, {"xxh64", f.xxh64}});
  return a;
}

// Asks the shell to recheck the evidence (when it can and there is any).
void recheck(AppState& s, GraphState& g, const CaptureGraph* c) {
  if (!s.options.recheck_files || !c->has_evidence) return;
  json f = json::parse(s.options.recheck_files(evidence_json(c).dump()), nullptr, false);
  if (f.is_object()) g.freshness = std::move(f);
}

bool is_stale(const GraphState& g) { return g.freshness.is_object() && g.freshness.value("stale", false); }

std::vector<std::string> stale_reasons(const GraphState& g) {
  std::vector<std::string> out;
  if (g.freshness.is_object() && g.freshness.contains("reasons") && g.freshness["reasons"].is_array())
    for (const auto& r : g.freshness["reasons"])
      if (r.is_string()) out.push_back(r.get<std::string>());
  return out;
}

// The banner: what was captured, and on failure the stage, each diagnostic and the evidence label.
void draw_summary(const CaptureGraph* c, const GraphState& g) {
  if (is_stale(g)) {
    std::string reasons;
    for (const auto& r : stale_reasons(g)) reasons += (reasons.empty() ? "" : "; ") + r;
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImColor(colors::kWarning), "stale: %s since capture - not certified; tvis graph captures again",
                       reasons.c_str());
    ImGui::PopTextWrapPos();
  }
  const std::string who = c->profile.empty() ? c->model + " (" + c->source + ")" : c->profile + " - " + c->model;
  if (c->ok) {
    std::string outs;
    for (const CaptureOperand& o : c->outputs) outs += (outs.empty() ? "" : ", ") + operand_text(o);
    ImGui::Text("%s: forward ok -> %s", who.c_str(), outs.c_str());
  } else {
    ImGui::TextColored(ImColor(colors::kError), "%s: failed at %s", who.c_str(), c->stage.c_str());
    for (const CaptureDiagnostic& d : c->diagnostics)
      ImGui::TextColored(ImColor(colors::kError), "  %s: %s", d.kind.c_str(), d.message.c_str());
  }
  if (!c->label.empty()) ImGui::TextColored(ImColor(colors::kWarning), "%s", c->label.c_str());
  if (!c->automatic.empty()) ImGui::TextColored(ImColor(colors::kMuted), "automatic input: %s", c->automatic.c_str());
  if (c->truncated) ImGui::TextColored(ImColor(colors::kWarning), "the graph reached max_capture_bytes: later calls are not shown");
}

std::string url_encoded(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char ch : s) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == ':') out += char(ch);
    else out += '%', out += hex[ch >> 4], out += hex[ch & 15];
  }
  return out;
}

// A capture that failed before its forward ran: the setup itself needs changing.
bool failed_in_setup(const CaptureGraph* c) { return !c->ok && c->stage != "forward"; }

// "Change inputs" / "Set up...": back to the setup form of this profile, when the run came from one.
void draw_setup_link(AppState& s, GraphState& g, const CaptureGraph* c) {
  g.setup_button = nullptr;
  if (g.setup_class.empty() || !s.options.open_url) return;
  if (ImGui::Button(failed_in_setup(c) ? "Set up..." : "Change inputs")) {
    std::string url = "/setup?class=" + url_encoded(g.setup_class);
    if (!g.setup_profile.empty()) url += "&profile=" + url_encoded(g.setup_profile);
    s.options.open_url(url);
  }
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  g.setup_button = {{"x", a.x}, {"y", a.y}, {"w", b.x - a.x}, {"h", b.y - a.y}};
}

struct Canvas {
  ImVec2 origin;  // screen position of graph (0, 0)
  float zoom;
  ImVec2 at(float x, float y) const { return {origin.x + x * zoom, origin.y + y * zoom}; }
};

void draw_edges(ImDrawList* dl, const Canvas& cv, const CaptureGraph* c) {
  const ImU32 line = IM_COL32(150, 160, 175, 255), text = IM_COL32(190, 200, 215, 255);
  for (const CaptureEdge& e : c->edges) {
    const std::vector<float>& p = e.points;
    if (p.size() < 4) continue;
    const size_t n = p.size() / 2;
    // dot's spline: p0, then (c1, c2, p) triples; a trailing point is the arrow tip.
    const size_t curve = 1 + ((n - 1) / 3) * 3;
    for (size_t k = 0; k + 3 < curve + 0 && k + 3 < n; k += 3)
      dl->AddBezierCubic(cv.at(p[2 * k], p[2 * k + 1]), cv.at(p[2 * k + 2], p[2 * k + 3]),
                         cv.at(p[2 * k + 4], p[2 * k + 5]), cv.at(p[2 * k + 6], p[2 * k + 7]), line,
                         1.5f);
    const ImVec2 tip = cv.at(p[2 * (n - 1)], p[2 * (n - 1) + 1]);
    const ImVec2 from = cv.at(p[2 * (curve - 1)], p[2 * (curve - 1) + 1]);
    if (n > curve) {  // the arrow head, from the curve's end to the tip
      dl->AddLine(from, tip, line, 1.5f);
      const float dx = tip.x - from.x, dy = tip.y - from.y, len = std::max(1e-3f, std::sqrt(dx * dx + dy * dy));
      const float ux = dx / len, uy = dy / len, a = 6.0f * std::min(1.5f, cv.zoom);
      dl->AddTriangleFilled(tip, {tip.x - ux * a - uy * a * 0.5f, tip.y - uy * a + ux * a * 0.5f},
                            {tip.x - ux * a + uy * a * 0.5f, tip.y - uy * a - ux * a * 0.5f}, line);
    }
    const size_t mid = (n / 2);
    const std::string label = shape_text(e.shape) + " " + e.dtype;
    const ImVec2 m = cv.at(p[2 * mid], p[2 * mid + 1]);
    if (cv.zoom > 0.45f) dl->AddText({m.x + 4, m.y - ImGui::GetFontSize() * 0.5f}, text, label.c_str());
  }
}

// Draws the nodes; returns the id of the node under the mouse (0: none).
uint32_t draw_nodes(ImDrawList* dl, const Canvas& cv, const CaptureGraph* c, uint32_t selected, bool hovered_canvas,
                    json& boxes) {
  uint32_t hover = 0;
  boxes = json::array();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const CaptureNode& node : c->nodes) {
    const CaptureNode* n = &node;
    const float hw = n->width * 0.5f, hh = n->height * 0.5f;
    const ImVec2 a = cv.at(n->x - hw, n->y - hh), b = cv.at(n->x + hw, n->y + hh);
    if (boxes.size() < 256) boxes.push_back({{"module", n->module}, {"x", a.x}, {"y", a.y}, {"w", b.x - a.x}, {"h", b.y - a.y}});
    const std::string& op = n->op;
    const bool io = op == "input" || op == "output";
    const bool failed = c->is_failed(*n);
    const ImU32 fill = failed ? IM_COL32(90, 30, 34, 255) : io ? IM_COL32(38, 52, 70, 255) : IM_COL32(44, 47, 56, 255);
    const ImU32 border = failed ? colors::kError : n->id == selected ? colors::kAccent : IM_COL32(110, 118, 132, 255);
    dl->AddRectFilled(a, b, fill, 4.0f * cv.zoom);
    dl->AddRect(a, b, border, 4.0f * cv.zoom, 0, n->id == selected || failed ? 2.5f : 1.0f);
    if (hovered_canvas && mouse.x >= a.x && mouse.x <= b.x && mouse.y >= a.y && mouse.y <= b.y) hover = n->id;
    if (cv.zoom < 0.4f) continue;
    std::vector<std::string> lines = {n->module.empty() ? op_label(op) : n->module, op_label(op)};
    for (size_t i = 0; i < n->outputs.size() && i < 2; ++i) lines.push_back(operand_text(n->outputs[i]));
    if (failed) lines.push_back("failed here");
    const float lh = ImGui::GetFontSize() * std::min(1.0f, cv.zoom);
    float y = (a.y + b.y) * 0.5f - lh * static_cast<float>(lines.size()) * 0.5f;
    ImFont* font = ImGui::GetFont();
    for (size_t i = 0; i < lines.size(); ++i, y += lh) {
      const ImVec2 size = font->CalcTextSizeA(lh, 1e9f, 0, lines[i].c_str());
      dl->AddText(font, lh, {(a.x + b.x) * 0.5f - size.x * 0.5f, y},
                  i == 0 ? IM_COL32(235, 238, 245, 255) : failed && i + 1 == lines.size() ? colors::kError : colors::kMuted,
                  lines[i].c_str());
    }
  }
  return hover;
}

void fit(GraphState& g, const CaptureGraph* c, ImVec2 size) {
  const float w = std::max(1.0f, c->width + 40), h = std::max(1.0f, c->height + 40);
  g.zoom = std::clamp(std::min(size.x / w, size.y / h), 0.2f, 1.5f);
  g.pan = {(size.x - c->width * g.zoom) * 0.5f, 20.0f * g.zoom};
  g.fitted = true;
}

void draw_canvas(GraphState& g, const CaptureGraph* c, ImVec2 size) {
  ImGui::BeginChild("graph_canvas", size, true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const ImVec2 p0 = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
  if (!g.fitted) fit(g, c, avail);
  ImGui::InvisibleButton("canvas", {std::max(1.0f, avail.x), std::max(1.0f, avail.y)});
  const bool hovered = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) g.pan.x += io.MouseDelta.x, g.pan.y += io.MouseDelta.y;
  if (hovered && io.MouseWheel != 0) {  // zoom about the mouse
    const float z = std::clamp(g.zoom * std::pow(1.15f, io.MouseWheel), 0.1f, 4.0f);
    const ImVec2 m{io.MousePos.x - p0.x, io.MousePos.y - p0.y};
    g.pan = {m.x - (m.x - g.pan.x) * z / g.zoom, m.y - (m.y - g.pan.y) * z / g.zoom};
    g.zoom = z;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, {p0.x + avail.x, p0.y + avail.y}, true);
  const Canvas cv{{p0.x + g.pan.x, p0.y + g.pan.y}, g.zoom};
  draw_edges(dl, cv, c);
  const uint32_t hover = draw_nodes(dl, cv, c, g.selected, hovered, g.boxes);
  dl->PopClipRect();
  if (hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 0).x == 0 &&
      ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 0).y == 0)
    g.selected = hover;
  ImGui::EndChild();
}

void draw_inspector(GraphState& g, const CaptureGraph* c) {
  ImGui::BeginChild("graph_inspector", {0, 0}, true);
  const CaptureNode* n = g.selected ? c->node(g.selected) : nullptr;
  if (!n) {
    ImGui::TextColored(ImColor(colors::kMuted), "Click a node for its inputs and outputs.");
    ImGui::TextColored(ImColor(colors::kMuted), "Drag to pan, wheel to zoom.");
    ImGui::Text("%u nodes, %u edges", static_cast<unsigned>(c->nodes.size()), static_cast<unsigned>(c->edges.size()));
    ImGui::TextColored(ImColor(colors::kMuted), "layout: %s", c->layout.c_str());
  } else {
    ImGui::Text("%s", n->module.c_str());
    ImGui::TextColored(ImColor(colors::kMuted), "%s", n->op.c_str());
    ImGui::Separator();
    ImGui::Text("inputs");
    for (const CaptureOperand& o : n->inputs) ImGui::BulletText("%s %s", o.name.c_str(), operand_text(o).c_str());
    ImGui::Text("outputs");
    for (const CaptureOperand& o : n->outputs) ImGui::BulletText("%s %s", o.name.c_str(), operand_text(o).c_str());
    if (c->is_failed(*n)) {
      ImGui::Separator();
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(ImColor(colors::kError), "this call failed: %s", c->first_diagnostic().c_str());
      ImGui::PopTextWrapPos();
    }
  }
  ImGui::EndChild();
}

void draw_graph_page(AppState& s) {
  GraphState& g = graph_state(s);
  const CaptureGraph* c = capture_of(s, g);
  if (!c) {
    const bool failed = s.model.profile_capture().state() == ChunkRead::Failed;
    ImGui::TextColored(ImColor(colors::kMuted), failed ? "The capture could not be read." : "Loading the capture...");
    return;
  }
  const int frame = ImGui::GetFrameCount();
  if (g.drawn_frame >= 0 && frame > g.drawn_frame + 1) recheck(s, g, c);  // shown again after another page
  g.drawn_frame = frame;
  draw_summary(c, g);
  draw_setup_link(s, g, c);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float inspector = std::min(320.0f, avail.x * 0.3f);
  draw_canvas(g, c, {avail.x - inspector - ImGui::GetStyle().ItemSpacing.x, avail.y});
  ImGui::SameLine();
  draw_inspector(g, c);
}

json graph_view(AppState& s) {
  GraphState& g = graph_state(s);
  const CaptureGraph* c = capture_of(s, g);
  if (!c)
    return {{"nodes", 0}, {"edges", 0}, {"failed", nullptr}, {"diagnostic", nullptr}, {"stale", false},
            {"stale_reasons", json::array()}, {"freshness", nullptr}, {"loading", true}};
  const CaptureNode* f = c->failed();
  const std::string diag = c->first_diagnostic();
  json j = {{"nodes", c->nodes.size()}, {"edges", c->edges.size()},
            {"failed", f ? json(f->module) : json(nullptr)},
            {"diagnostic", c->ok || diag.empty() ? json(nullptr) : json(diag)}, {"stale", is_stale(g)},
            {"stale_reasons", stale_reasons(g)}, {"freshness", g.freshness}, {"ok", c->ok},
            {"stage", c->ok ? json(nullptr) : json(c->stage)}, {"label", c->label},
            {"partial", c->partial}, {"layout", c->layout}, {"zoom", g.zoom}, {"boxes", g.boxes}};
  json output_shapes = json::array();  // the capture's output shapes, [[3, 2]]: what the summary line shows
  for (const CaptureOperand& o : c->outputs) output_shapes.push_back(o.shape);
  j["outputs"] = output_shapes;
  j["setup"] = g.setup_class.empty() ? json(nullptr)
                                     : json{{"class", g.setup_class}, {"profile", g.setup_profile},
                                            {"label", failed_in_setup(c) ? "Set up..." : "Change inputs"},
                                            {"button", g.setup_button}};
  const CaptureNode* n = g.selected ? c->node(g.selected) : nullptr;
  if (n) {
    json ins = json::array(), outs = json::array();
    for (const CaptureOperand& o : n->inputs) ins.push_back(o.name + " " + operand_text(o));
    for (const CaptureOperand& o : n->outputs) outs.push_back(o.name + " " + operand_text(o));
    j["selected"] = {{"id", n->id}, {"module", n->module}, {"op", n->op}, {"inputs", ins}, {"outputs", outs}};
  } else {
    j["selected"] = nullptr;
  }
  return j;
}

// {"module": MODULE} (also a link's module=, so `--module fc` opens with fc
// inspected) or {"node": ID} selects a node; {"zoom": Z} sets the zoom. Null
// for a run without a capture, so the key goes on to the other pages.
bool select_node(GraphState& g, const CaptureGraph* c, const json& cmd) {
  const bool by_module = cmd.contains("module") && cmd["module"].is_string();
  for (const CaptureNode& n : c->nodes)
    if ((by_module && n.module == cmd["module"].get<std::string>()) || (!by_module && n.id == cmd["node"].get<uint32_t>())) {
      g.selected = n.id;
      return true;
    }
  return false;
}

json graph_command(AppState& s, const json& cmd) {
  if (!has_capture(s)) return nullptr;
  GraphState& g = graph_state(s);
  const CaptureGraph* c = capture_of(s, g);
  if (cmd.contains("freshness") && cmd["freshness"].is_object()) {  // the browser's host rechecked the files
    g.freshness = cmd["freshness"];
    return true;
  }
  for (const char* key : {"setup_class", "setup_profile"})  // link keys of a run made by the setup form
    if (cmd.contains(key) && (cmd[key].is_string() || cmd[key].is_number_integer())) {  // a link reads "7" as 7
      (std::string(key) == "setup_class" ? g.setup_class : g.setup_profile) =
          cmd[key].is_string() ? cmd[key].get<std::string>() : cmd[key].dump();
      return true;
    }
  if (cmd.contains("zoom") && cmd["zoom"].is_number()) {
    g.zoom = std::clamp(cmd["zoom"].get<float>(), 0.1f, 4.0f);
    return true;
  }
  const bool by_module = cmd.contains("module") && cmd["module"].is_string();
  const bool by_id = cmd.contains("node") && cmd["node"].is_number_unsigned();
  if (!by_module && !by_id) return nullptr;
  if (!c) {  // still loading: selected once it arrives
    g.pending = cmd;
    return true;
  }
  return select_node(g, c, cmd);
}

bool graph_present(AppState& s) { return has_capture(s); }

}  // namespace

extern const PageSpec kGraphPage;
const PageSpec kGraphPage = {tvis::links::page::kGraph, draw_graph_page, graph_view, graph_command, false, graph_present, make_graph_state};

}  // namespace tvis::viewer
