// shape_findings.h: the pieces shape_diagnostics.cpp (torch operators) and
// jax_shape_diagnostics.cpp (lax primitives) share: operand lookup by name,
// dims as text (unknown as `?`), the diagnostics being collected, and
// recorded options read with bounds (the worker runs the model's code, so a
// recorded number is input from it: out of range is unknown).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tvis/profiles/shape_diagnostics.h"

namespace tvis::profiles::shape {

inline std::string num(int64_t d) { return d < 0 ? "?" : std::to_string(d); }

inline bool known(int64_t a, int64_t b) { return a >= 0 && b >= 0; }

inline std::string named(const Operand& o) { return o.name + " " + shape_text(o.shape); }

inline const RecordedOperand* find(const std::vector<RecordedOperand>& ops, const std::string& name) {
  for (const auto& o : ops)
    if (o.operand.name == name) return &o;
  return nullptr;
}

// Collects diagnostics; every one carries the operands it was made from.
struct Findings {
  std::vector<Diagnostic> out;
  void add(const std::string& kind, const std::string& message, std::vector<const Operand*> ops) {
    Diagnostic d;
    d.kind = kind;
    d.message = message;
    for (const Operand* o : ops) d.operands.push_back(*o);
    out.push_back(std::move(d));
  }
};

inline void same_dtype(Findings& f, const std::string& op, const Operand& a, const Operand& b) {
  if (a.dtype.empty() || b.dtype.empty() || a.dtype == b.dtype) return;
  f.add("dtype", a.name + " is " + a.dtype + ", " + b.name + " is " + b.dtype + ": " + op + " needs one dtype", {&a, &b});
}

constexpr uint64_t kMaxOption = uint64_t(1) << 20;

// A recorded integer within ±kMaxOption, else `fallback`.
inline int64_t bounded(const nlohmann::json& x, int64_t fallback) {
  if (!x.is_number_integer()) return fallback;
  if (x.is_number_unsigned()) return x.get<uint64_t>() <= kMaxOption ? int64_t(x.get<uint64_t>()) : fallback;
  const int64_t i = x.get<int64_t>();
  return i >= -int64_t(kMaxOption) && i <= int64_t(kMaxOption) ? i : fallback;
}

// The lax primitives (jax_shape_diagnostics.cpp); `options` as worker_jax.py records them.
void dot_general(Findings& f, const std::vector<RecordedOperand>& ops, const nlohmann::json& options);
void conv_general_dilated(Findings& f, const std::vector<RecordedOperand>& ops, const nlohmann::json& options);

}  // namespace tvis::profiles::shape
