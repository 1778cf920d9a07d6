// check_util.h: small helpers the checks share (private to analysis/).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "tvis/analysis/finding.h"
#include "tvis/analysis/run_facts.h"

namespace tvis::analysis {

/// "%.3g" of v: numbers in messages read as a practitioner writes them.
inline std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

/// The module or function an event names, as messages print it: "layer1.0.conv2 (Conv2d)".
inline std::string who(const EventFact& e) {
  return e.class_name.empty() || e.class_name == e.name ? e.name : e.name + " (" + e.class_name + ")";
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
