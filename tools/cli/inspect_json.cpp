#include "inspect_json.h"

#include <nlohmann/json.hpp>
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace fmt = tvis::format;
using Json = nlohmann::ordered_json;

// The `tvis inspect --json` object (keys in docs/cli.md). Losses are written by python_float_repr so their
// digits are Python's repr() (nlohmann's own float printing is round-trip
// but not always shortest); non-finite losses become null.
namespace {

/// `[v, ...]` with Python's repr() digits; non-finite values as null.
std::string float_list(const std::vector<double>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    const std::string r = fmt::python_float_repr(values[i]);
    out += (r == "nan" || r == "inf" || r == "-inf") ? "null" : r;
  }
  return out + "]";
}

}  // namespace

std::string inspect_json(const fmt::RunSummary& s, const std::vector<RankSummary>& ranks) {
  Json captured;
  captured["tensors"] = s.captured.tensors;
  captured["samples"] = s.captured.samples;
  captured["pipeline"] = Json{{"transforms", s.captured.transforms}};
  captured["gradcam"] = s.captured.gradcam;
  captured["attention"] = Json::array();
  for (const auto& a : s.captured.attention) captured["attention"].push_back(
      Json{{"module", a.module}, {"shape", a.shape}, {"source", a.rebuilt ? "rebuilt" : "captured"}, {"kind", a.kind}});
  captured["embeddings"] = s.captured.embeddings;
  captured["library_attention"] = Json::array();
  for (const auto& l : s.captured.library_attention)
    captured["library_attention"].push_back(Json{{"module", l.module}, {"kind", l.kind}});

  const std::string losses = float_list(s.losses);
  std::string step_losses = "[";
  for (size_t i = 0; i < s.step_losses.size(); ++i) step_losses += (i ? ", " : "") + float_list(s.step_losses[i]);
  step_losses += "]";

  std::string out = "{\n";
  auto field = [&](const char* key, const std::string& value, bool last = false) {
    out += "  " + tvis::safe_json::text(Json(key)) + ": " + value + (last ? "\n" : ",\n");
  };
  // Nested objects: one key per line, compact values.
  auto indented = [](const Json& j) {
    std::string r = "{\n";
    size_t i = 0;
    for (const auto& item : j.items())
      r += "    " + tvis::safe_json::text(Json(item.key())) + ": " +
           tvis::safe_json::text(item.value()) + (++i < j.size() ? ",\n" : "\n");
    return r + "  }";
  };
  const auto dump = [](const Json& j) { return tvis::safe_json::text(j); };
  field("format_version", dump(Json(s.format_version)));
  field("complete", s.complete ? "true" : "false");
  field("steps", std::to_string(s.steps));
  field("events", std::to_string(s.events));
  field("modules", dump(Json(s.modules)));
  field("functions", dump(Json(s.functions)));
  field("losses", losses);
  field("step_losses", step_losses);
  if (!s.all_reduce_ms.empty()) field("all_reduce_ms", float_list(s.all_reduce_ms));
  if (!s.device_reads.empty()) field("device_reads", dump(Json(s.device_reads)));
  field("notices", dump(Json(s.notices)));
  field("exception", s.has_exception ? dump(Json(s.exception)) : "null");
  if (!ranks.empty()) {
    std::string r = "[";
    for (size_t i = 0; i < ranks.size(); ++i) {
      const RankSummary& k = ranks[i];
      r += std::string(i ? ", " : "") + "{\"rank\": " + std::to_string(k.rank) + ", \"steps\": " +
           std::to_string(k.steps) + ", \"losses\": " + float_list(k.losses) +
           ", \"complete\": " + (k.complete ? "true" : "false") +
           (k.error.empty() ? "" : ", \"error\": " + dump(Json(k.error))) + "}";
    }
    field("ranks", r + "]");
  }
  field("captured", indented(captured), true);
  return out + "}\n";
}

}  // namespace tvis::cli
