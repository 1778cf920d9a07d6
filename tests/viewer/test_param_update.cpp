// Δw from the weights stored once per step boundary: subtraction in the
// parameter's dtype, as torch's CPU kernels round it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "tvis/viewer_model/param_update.h"

using tvis::viewer::subtract_in_dtype;
namespace schema = tvis::schema;

TEST_CASE("float32 differences are float32 differences, not double ones", "[param_update]") {
  const double a = static_cast<float>(0.1), b = static_cast<float>(1e-9);
  CHECK(subtract_in_dtype(a, b, schema::DType::Float32) == static_cast<double>(static_cast<float>(a) - static_cast<float>(b)));
  CHECK(subtract_in_dtype(a, b, schema::DType::Float32) != a - b);
  CHECK(subtract_in_dtype(a, b, schema::DType::Float64) == a - b);
}

TEST_CASE("float16 and bfloat16 differences round to the dtype, ties to even", "[param_update]") {
  // 1 + 2^-11 lies halfway between the halves 1 and 1 + 2^-10: ties to even gives 1.
  CHECK(subtract_in_dtype(1.0 + std::ldexp(1.0, -11), 0.0, schema::DType::Float16) == 1.0);
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9.
  CHECK(subtract_in_dtype(1.0 + 3 * std::ldexp(1.0, -11), 0.0, schema::DType::Float16) == 1.0 + std::ldexp(1.0, -9));
  CHECK(std::isinf(subtract_in_dtype(65520.0, 0.0, schema::DType::Float16)));
  CHECK(subtract_in_dtype(65519.0, 0.0, schema::DType::Float16) == 65504.0);
  // Subnormal halves are multiples of 2^-24.
  CHECK(subtract_in_dtype(std::ldexp(1.0, -24) * 2.5, 0.0, schema::DType::Float16) == std::ldexp(1.0, -24) * 2);
  // bfloat16 keeps 7 mantissa bits: 1 + 2^-8 is a tie, to even 1; 1 + 3 * 2^-8 goes up to 1 + 2^-6.
  CHECK(subtract_in_dtype(1.0 + std::ldexp(1.0, -8), 0.0, schema::DType::BFloat16) == 1.0);
  CHECK(subtract_in_dtype(1.0 + 3 * std::ldexp(1.0, -8), 0.0, schema::DType::BFloat16) == 1.0 + std::ldexp(1.0, -6));
  CHECK(subtract_in_dtype(3.0, 0.5, schema::DType::BFloat16) == 2.5);
}
