#include "tvis/viewer_model/param_update.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// `f` rounded to bfloat16 (nearest, ties to even), back as a float.
float round_bf16(float f) {
  if (std::isnan(f)) return f;
  const uint32_t u = bits_of(f);
  const uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return float_of(rounded & 0xFFFF0000u);
}

/// `f` rounded to IEEE half precision (nearest, ties to even), back as a float.
float round_half(float f) {
  if (std::isnan(f) || std::isinf(f)) return f;
  const float a = std::fabs(f);
  if (a >= 65520.0f) return std::copysign(INFINITY, f);  // rounds past the largest half, 65504
  if (a < 6.103515625e-05f) {                              // subnormal halves: multiples of 2^-24
    const float q = std::nearbyint(a * 16777216.0f);       // the default rounding mode: ties to even
    return std::copysign(q / 16777216.0f, f);
  }
  // Normal: keep 10 of float's 23 mantissa bits, ties to even.
  const uint32_t u = bits_of(f);
  const uint32_t rounded = u + 0xFFFu + ((u >> 13) & 1u);
  return float_of(rounded & 0xFFFFE000u);
}

}  // namespace

double subtract_in_dtype(double a, double b, schema::DType dtype) {
  switch (dtype) {
    case schema::DType::Float32: return static_cast<double>(static_cast<float>(a) - static_cast<float>(b));
    case schema::DType::Float16: return round_half(static_cast<float>(a) - static_cast<float>(b));
    case schema::DType::BFloat16: return round_bf16(static_cast<float>(a) - static_cast<float>(b));
    default: return a - b;  // float64, and integers (exact in double up to 2^53)
  }
}

std::shared_ptr<const DecodedTensor> update_values(RunModel& model, const ParamTensors& p, int step) {
  auto settled = [&](std::string error) {
    auto d = std::make_shared<DecodedTensor>();
    d->id = p.update >= 0 ? static_cast<uint64_t>(p.update) : UINT64_MAX;
    d->loading = false;
    d->error = std::move(error);
    return d;
  };
  if (p.update >= 0) {
    auto stored = model.values().get(static_cast<uint64_t>(p.update), step);
    if (stored->loading || stored->ok()) return stored;
    if (p.after < 0) return stored;  // its error says why
  } else if (p.after < 0) {
    return settled("No update Δw was recorded for this parameter at this step.");
  }
  auto before = model.values().get(static_cast<uint64_t>(p.weight), step);
  auto after = model.values().get(static_cast<uint64_t>(p.after), step);
  if (before->loading || after->loading) {
    auto d = std::make_shared<DecodedTensor>();
    d->id = p.update >= 0 ? static_cast<uint64_t>(p.update) : UINT64_MAX;
    return d;
  }
  if (!before->ok() || !after->ok())
    return settled("Δw = weight after − weight before, and " + (before->ok() ? after->error : before->error));
  const TensorValues& b = before->values;
  const TensorValues& a = after->values;
  if (b.shape.size() != a.shape.size() || b.shape.empty() != a.shape.empty())
    return settled("the weights before and after the step differ in shape");
  auto d = settled("");
  const size_t n = std::min(b.values.size(), a.values.size());
  d->values.shape = b.values.size() <= a.values.size() ? b.shape : a.shape;
  d->values.partial = b.partial || a.partial;
  d->values.values.resize(n);
  const DType dtype = before->dtype;
  for (size_t i = 0; i < n; ++i) d->values.values[i] = subtract_in_dtype(a.values[i], b.values[i], dtype);
  return d;
}

}  // namespace tvis::viewer
