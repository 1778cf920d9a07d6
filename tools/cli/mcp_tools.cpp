#include "mcp_tools.h"

#include <filesystem>

#include "diagnose_report.h"
#include "profile_commands.h"

namespace tvis::cli {

namespace {

using nlohmann::json;

const json kTargetSchema = {{"type", "string"},
                            {"minLength", 1},
                            {"description",
                             "the model class as MODULE:CLASS (pkg.module:Class); with profile, the profile must be "
                             "for this class. Neither: the configuration's one model profile"}};
const json kProfileSchema = {{"type", "string"}, {"minLength", 1}, {"description", "a profile name of tensorviz.toml"}};
const json kTimeoutSchema = {{"type", "integer"},
                             {"minimum", profiles::kTimeoutMinMs},
                             {"maximum", profiles::kTimeoutMaxMs},
                             {"description", "the forward's limit in ms instead of the profile's limits.timeout_ms"}};

// What check and graph return (tvis check --json): refusals have the same four keys.
json capture_output_schema() {
  const json nullable_string = {{"type", json::array({"string", "null"})}};
  const json operand = {{"type", "object"},
                        {"properties", {{"name", {{"type", "string"}}}, {"shape", {{"type", "array"}}}, {"dtype", {{"type", "string"}}}}},
                        {"required", json::array({"name", "shape", "dtype"})}};
  const json diagnostic = {{"type", "object"},
                           {"properties",
                            {{"kind", {{"type", "string"}}},
                             {"message", {{"type", "string"}}},
                             {"field", {{"type", "string"}}},
                             {"operands", {{"type", "array"}, {"items", operand}}},
                             {"parameters", {{"type", "object"}}}}},
                           {"required", json::array({"kind", "message", "operands"})}};
  return {{"type", "object"},
          {"properties",
           {{"ok", {{"type", "boolean"}}},
            {"profile", nullable_string},
            {"stage", nullable_string},
            {"outputs", {{"type", "array"}, {"items", operand}}},
            {"diagnostics", {{"type", "array"}, {"items", diagnostic}}}}},
          {"required", json::array({"ok", "profile", "stage", "outputs", "diagnostics"})}};
}

CaptureRequestArgs capture_request(const McpToolsSetup& s, const json& args) {
  CaptureRequestArgs r;
  r.workspace = s.workspace;
  r.python = s.python;
  r.target = args.value("target", "");
  r.profile = args.value("profile", "");
  if (args.contains("timeout_ms")) r.timeout_ms = args["timeout_ms"].get<int64_t>();
  r.timeout_setting = "the timeout_ms argument";
  return r;
}

// The path `out` names inside `workspace`, or "" with `why` (naming the
// argument `what`): a client may only name a path in the workspace
// (relative, never leaving it, also not through a link), since tvis writes
// there (graph's out) or reads there (diagnose's run).
std::string runs_folder_in(const std::string& workspace, const std::string& out, std::string* why,
                           const std::string& what = "out") {
  namespace fs = std::filesystem;
  if (fs::path(out).is_absolute()) return *why = what + " must be relative to the workspace, got the absolute " + out, "";
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(workspace, ec);
  const fs::path folder = fs::weakly_canonical(fs::path(workspace) / out, ec);
  const std::string r = root.string(), f = folder.string();
  if (ec || r.empty() || !(f == r || f.rfind(r == "/" ? r : r + "/", 0) == 0))
    return *why = what + " " + out + " leaves the workspace " + workspace, "";
  return f;
}

mcp::ToolResult result(const McpToolsSetup& s, const std::string& tool, const CommandOutcome& o) {
  for (const auto& line : o.problems) s.log(tool + ": " + line);
  return {o.json, o.exit_code != 0};
}

}  // namespace

std::vector<mcp::Tool> profile_tools(const McpToolsSetup& setup) {
  std::vector<mcp::Tool> tools;
  tools.push_back({"profiles", "Model profiles and model classes",
                   "Lists the workspace's model profiles (tensorviz.toml, validated as a whole: every problem with its "
                   "field path) and its torch.nn.Module classes (read with Python's ast, nothing imported), and what "
                   "each class and profile would run as (profile, declaration, automatic input, or refused and why). "
                   "The object `tvis profiles --json` prints; isError when the configuration is invalid.",
                   {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}},
                   {{"type", "object"},
                    {"properties",
                     {{"workspace", {{"type", "string"}}},
                      {"valid", {{"type", "boolean"}}},
                      {"errors", {{"type", "array"}}},
                      {"profiles", {{"type", "array"}}},
                      {"classes", {{"type", "array"}}},
                      {"requests", {{"type", "array"}}}}},
                    {"required", json::array({"workspace", "valid", "errors", "profiles", "classes", "requests"})}},
                   [setup](const json&) { return result(setup, "profiles", profiles_outcome(setup.workspace, setup.python)); }});
  tools.push_back({"check", "Check a model's forward",
                   "Runs one forward of a model in an isolated Python worker (the profile's device, seed, inputs and "
                   "limits) and returns the output shapes, or the failing stage (config, request, device, import, "
                   "construction, factory, fixture, inputs, binding, forward) with typed diagnostics: kind, message, "
                   "the operands of the failing matmul/linear/conv/embedding call with their shapes and dtypes, the "
                   "config field, the missing or unexpected parameter names. The object `tvis check --json` prints; "
                   "isError when setup or the forward failed or the request was refused.",
                   {{"type", "object"},
                    {"properties", {{"target", kTargetSchema}, {"profile", kProfileSchema}, {"timeout_ms", kTimeoutSchema}}},
                    {"additionalProperties", false}},
                   capture_output_schema(),
                   [setup](const json& args) { return result(setup, "check", check_outcome(capture_request(setup, args), "")); }});
  tools.push_back({"graph", "Capture a model's forward as a graph run",
                   "Runs the forward as check does and writes the captured graph (module calls, tensor shapes, the "
                   "failing call) as a run the tvis viewers open on their Graph page. Returns check's object plus "
                   "run (the run.tvis path) and layout; a failed forward still writes its partial graph. The same "
                   "request again reopens its saved run while every file it depended on is unchanged (reopened).",
                   {{"type", "object"},
                    {"properties",
                     {{"target", kTargetSchema},
                      {"profile", kProfileSchema},
                      {"timeout_ms", kTimeoutSchema},
                      {"out",
                       {{"type", "string"},
                        {"minLength", 1},
                        {"description", "the runs folder to write into, relative to the workspace and inside it (default <workspace>/tvis_runs)"}}},
                      {"recapture",
                       {{"type", "boolean"},
                        {"description",
                         "capture again even when the request's saved run is unchanged (default false: that run is "
                         "reopened as is, reopened true)"}}}}},
                    {"additionalProperties", false}},
                   [] {
                     json s = capture_output_schema();
                     s["properties"]["run"] = {{"type", "string"}};
                     return s;
                   }(),
                   [setup](const json& args) {
                     CaptureRequestArgs r = capture_request(setup, args);
                     r.recapture = args.value("recapture", false);
                     std::string out = args.value("out", ""), why;
                     if (!out.empty() && (out = runs_folder_in(setup.workspace, out, &why)).empty())
                       return result(setup, "graph", refused_outcome(r, why));
                     return result(setup, "graph", graph_outcome(r, out, graph_argv(r)));
                   }});
  tools.push_back({"diagnose", "Say what is wrong with a recorded training",
                   "Reads a recorded run's statistics and indexes (never its tensor values) and returns findings, "
                   "worst first: the first non-finite value and what produced it, exploding or vanishing gradients, "
                   "updates far outside the usual size, parameters left out, probabilities passed as logits, targets "
                   "out of range or of one class, unnormalized or repeated batches, a loss that is not finite or "
                   "rises. Each has a kind, a severity (error, warning, note), a message, its evidence as numbers and "
                   "a link (page, step, phase, module, param) to where the viewer shows it. The object `tvis "
                   "diagnose --json` prints; isError when the run cannot be read or an error-level finding exists.",
                   {{"type", "object"},
                    {"properties",
                     {{"run",
                       {{"type", "string"},
                        {"minLength", 1},
                        {"description",
                         "a run.tvis, its run folder, or a runs folder (its newest run), relative to the workspace "
                         "and inside it"}}}}},
                    {"required", json::array({"run"})},
                    {"additionalProperties", false}},
                   {{"type", "object"},
                    {"properties",
                     {{"run", {{"type", "string"}}},
                      {"findings", {{"type", "array"}}},
                      {"counts", {{"type", "object"}}},
                      {"read", {{"type", "object"}}}}},
                    {"required", json::array({"run", "findings", "counts"})}},
                   [setup](const json& args) {
                     std::string why, error;
                     const std::string run = runs_folder_in(setup.workspace, args.value("run", ""), &why, "run");
                     DiagnoseReport report;
                     if (run.empty() || !diagnose_run(run, report, &error)) {
                       const std::string message = run.empty() ? why : error;
                       setup.log("diagnose: " + message);
                       return mcp::ToolResult{{{"run", args.value("run", "")},
                                               {"findings", json::array()},
                                               {"counts", json::object()},
                                               {"error", message}},
                                              true};
                     }
                     // A run with nothing to judge is an error result with its reason, never "no findings".
                     return mcp::ToolResult{diagnose_json(report), report.has_error() || !report.unjudged.empty()};
                   }});
  const json run_in_workspace = {{"type", "string"},
                                 {"minLength", 1},
                                 {"description", "a run.tvis, its run folder, or a runs folder (its newest run), "
                                                 "relative to the workspace and inside it"}};
  const json tolerance = {{"type", "number"}, {"minimum", 0}, {"description", "per statistic; default 0 (exact)"}};
  tools.push_back({"diff", "Where two recorded runs part ways",
                   "Compares two recorded runs of the same training (the same script twice, before and after a "
                   "change, two torch versions, two devices): events matched by step, phase, name and call order, "
                   "their tensors and every parameter's weight, gradient and update compared by the statistics the "
                   "recorder computed over all values (exactly, or within atol + rtol * |b|). Returns the first "
                   "differing tensor in call order and the largest difference per step and layer, each with a link. "
                   "The object `tvis diff --json` prints; isError when a run cannot be read.",
                   {{"type", "object"},
                    {"properties", {{"a", run_in_workspace}, {"b", run_in_workspace}, {"atol", tolerance}, {"rtol", tolerance}}},
                    {"required", json::array({"a", "b"})},
                    {"additionalProperties", false}},
                   {{"type", "object"},
                    {"properties", {{"same", {{"type", "boolean"}}}, {"first", {{"type", json::array({"object", "null"})}}}}},
                    {"required", json::array({"same", "first"})}},
                   [setup](const json& args) {
                     std::string why, error;
                     std::vector<std::string> runs;
                     for (const char* key : {"a", "b"}) {
                       runs.push_back(runs_folder_in(setup.workspace, args.value(key, ""), &why, key));
                       if (runs.back().empty()) break;
                     }
                     json out;
                     if (runs.size() == 2 && !runs[1].empty() &&
                         diff_json(runs[0], runs[1], {args.value("atol", 0.0), args.value("rtol", 0.0)}, &out, &error))
                       return mcp::ToolResult{out, false};
                     const std::string message = why.empty() ? error : why;
                     setup.log("diff: " + message);
                     return mcp::ToolResult{{{"same", false}, {"first", nullptr}, {"error", message}}, true};
                   }});
  return tools;
}

}  // namespace tvis::cli
