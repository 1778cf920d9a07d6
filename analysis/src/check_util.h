// check_util.h: small helpers the checks share (private to analysis/).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tvis/analysis/finding.h"
#include "tvis/analysis/run_facts.h"

namespace tvis::analysis {

/// "%.3g" of v: numbers in messages read as a practitioner writes them;
/// "NaN", "Inf" and "-Inf" for values that are not finite.
inline std::string num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

/// The module or function an event names, as messages print it: "layer1.0.conv2 (Conv2d)".
inline std::string who(const EventFact& e) {
  return e.class_name.empty() || e.class_name == e.name ? e.name : e.name + " (" + e.class_name + ")";
}

/// A non-negative count from a detail field (e.detail->units()); -1 when
/// absent, negative or absurdly large.
inline double count_of(flatbuffers::Optional<int64_t> v) {
  return v && *v >= 0 && *v < int64_t(1e15) ? double(*v) : -1;
}

/// A string detail field's text (e.detail->grads_carried_param()), or "" when absent.
inline std::string text_of(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

/// The module of a parameter path ("layer1.0.conv1.weight" -> "layer1.0.conv1"; "" at the top).
inline std::string module_of(const std::string& param) {
  const size_t dot = param.rfind('.');
  return dot == std::string::npos ? std::string() : param.substr(0, dot);
}

/// The space-separated words of a detail field (grads_unoptimized_names); none when absent.
inline std::vector<std::string> words_of(const flatbuffers::String* text) {
  std::vector<std::string> out;
  if (!text) return out;
  std::istringstream in(text->str());
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// "a, b, c and 2 more": at most `shown` names of a list.
inline std::string names_of(const std::vector<std::string>& names, size_t shown = 5) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < shown; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > shown) s += " and " + std::to_string(names.size() - shown) + " more";
  return s;
}

inline Finding finding(const char* kind, Severity severity, std::string message, int step, uint64_t event_order) {
  Finding f;
  f.kind = kind;
  f.severity = severity;
  f.message = std::move(message);
  f.where.step = step;
  f.order_step = step;
  f.order_event = event_order;
  return f;
}

}  // namespace tvis::analysis
