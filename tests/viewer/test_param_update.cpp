// Δw from the weights stored once per step boundary: subtraction in the
// parameter's dtype, as torch's CPU kernels round it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "tvis/format/byte_source.h"
#include "tvis/viewer_model/param_update.h"
#include "tvis/viewer_model/run_model.h"

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

TEST_CASE("update_values reads every tensor through the model's one cache", "[param_update][viewer][model]") {
  namespace vw = tvis::viewer;
  vw::RunModel model(64ull << 20);
  auto source = tvis::format::open_file_source(TVIS_TEST_GOLDEN_RUN);
  REQUIRE(source.ok());
  model.open(source.value());
  REQUIRE(model.status() == vw::RunStatus::Open);
  REQUIRE(model.optimizer_steps().ready());
  const std::optional<vw::ParamTensors> p = model.optimizer_steps().param_tensors(0, "conv.weight");
  REQUIRE(p);
  std::shared_ptr<const vw::DecodedTensor> d;
  for (int i = 0; i < 64 && (!d || d->loading); ++i) d = vw::update_values(model, *p, 0);
  REQUIRE(d->ok());
  REQUIRE(!d->values.values.empty());
  const uint64_t held = model.values().bytes_held();
  CHECK(held > 0);
  if (p->update >= 0 && model.values().get(static_cast<uint64_t>(p->update), 0)->ok()) {
    // Δw's own values were kept: the answer is the cached tensor itself.
    CHECK(vw::update_values(model, *p, 0) == model.values().get(static_cast<uint64_t>(p->update), 0));
  } else {
    // after − before of the two cached weights, in the weight's dtype.
    REQUIRE(p->after >= 0);
    auto before = model.values().get(static_cast<uint64_t>(p->weight), 0);
    auto after = model.values().get(static_cast<uint64_t>(p->after), 0);
    REQUIRE(before->ok());
    REQUIRE(after->ok());
    for (size_t i = 0; i < d->values.values.size(); ++i)
      CHECK(d->values.values[i] == subtract_in_dtype(after->values.values[i], before->values.values[i], before->dtype));
  }
  CHECK(model.values().bytes_held() == held);  // asked again: nothing decoded anew
}
