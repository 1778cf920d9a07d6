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

ChunkRead values_of(RunModel& model, int64_t id, int step, TensorValues* out, const schema::TensorRecord** rec,
                    std::string* error) {
  bool done = true;
  TensorRef r = model.tensors().by_id(model, static_cast<uint64_t>(id), step, &done);
  if (!r) {
    if (!done) return ChunkRead::Loading;
    *error = "tensor " + std::to_string(id) + " is not in the run";
    return ChunkRead::Ready;
  }
  *rec = r.rec;
  return model.tensors().read_values(model, *r.rec, out, error);
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

ChunkRead read_update_values(RunModel& model, const schema::ParamRecord& p, int step, TensorValues* out,
                             std::string* error) {
  *out = {};
  error->clear();
  const schema::TensorRecord* urec = nullptr;
  if (p.update() >= 0) {
    TensorValues stored;
    std::string why;
    const ChunkRead r = values_of(model, p.update(), step, &stored, &urec, &why);
    if (r == ChunkRead::Loading) return r;
    if (why.empty()) {
      *out = std::move(stored);
      return ChunkRead::Ready;
    }
    if (p.after() < 0) {
      *error = why;
      return ChunkRead::Ready;
    }
  } else if (p.after() < 0) {
    *error = "No update Δw was recorded for this parameter at this step.";
    return ChunkRead::Ready;
  }
  TensorValues before, after;
  const schema::TensorRecord *brec = nullptr, *arec = nullptr;
  std::string berr, aerr;
  const ChunkRead rb = values_of(model, static_cast<int64_t>(p.weight()), step, &before, &brec, &berr);
  const ChunkRead ra = values_of(model, p.after(), step, &after, &arec, &aerr);
  if (rb == ChunkRead::Loading || ra == ChunkRead::Loading) return ChunkRead::Loading;
  if (!berr.empty() || !aerr.empty()) {
    *error = "Δw = weight after − weight before, and " + (berr.empty() ? aerr : berr);
    return ChunkRead::Ready;
  }
  if (before.shape.size() != after.shape.size() || before.shape.empty() != after.shape.empty()) {
    *error = "the weights before and after the step differ in shape";
    return ChunkRead::Ready;
  }
  const size_t n = std::min(before.values.size(), after.values.size());
  out->shape = before.values.size() <= after.values.size() ? before.shape : after.shape;
  out->partial = before.partial || after.partial;
  out->values.resize(n);
  const schema::DType dtype = brec->dtype();
  for (size_t i = 0; i < n; ++i) out->values[i] = subtract_in_dtype(after.values[i], before.values[i], dtype);
  return ChunkRead::Ready;
}

}  // namespace tvis::viewer
