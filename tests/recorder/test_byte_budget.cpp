// ByteBudget: the order in which a run's byte budget grants values.
#include <catch2/catch.hpp>

#include "tvis/recorder/byte_budget.h"

using tvis::recorder::ByteBudget;
using P = ByteBudget::Priority;

TEST_CASE("no budget grants everything", "[byte_budget]") {
  ByteBudget b(0, 3);
  CHECK(b.grant(P::Activations, 1ull << 40));
  CHECK(b.refused() == 0);
}

TEST_CASE("small parameters are kept although followed rows would fill the step", "[byte_budget]") {
  ByteBudget b(16 << 20, 2);  // 8 MiB a step
  b.set_parameter_bytes(44 << 10);
  b.begin_step(0);
  CHECK(b.grant(P::Essential, 800 << 10));  // the batch
  int rows_kept = 0;
  for (int i = 0; i < 4; ++i) rows_kept += b.grant(P::FollowedRows, 4 << 20) ? 1 : 0;  // 4 MiB of rows each
  CHECK(rows_kept == 1);
  for (int i = 0; i < 3; ++i) CHECK(b.grant(P::Parameters, 44 << 10));  // before, gradient, after
  CHECK(b.used() <= 8u << 20);
}

TEST_CASE("parameters larger than the share leave half of it to followed rows", "[byte_budget]") {
  ByteBudget b(600 << 20, 3);  // 200 MiB a step
  b.set_parameter_bytes(400 << 20);
  b.begin_step(0);
  CHECK(b.parameter_reserve() == 100u << 20);
  CHECK(b.grant(P::FollowedRows, 90 << 20));
  CHECK_FALSE(b.grant(P::FollowedRows, 20 << 20));
  CHECK_FALSE(b.grant(P::Activations, 20 << 20));
  CHECK(b.grant(P::Parameters, 100 << 20));
  CHECK_FALSE(b.grant(P::Parameters, 20 << 20));  // the share is spent
  CHECK(b.refused() == 3);
}

TEST_CASE("what a step leaves unused goes to the later steps", "[byte_budget]") {
  ByteBudget b(30 << 20, 3);
  b.begin_step(0);
  CHECK(b.grant(P::Activations, 2 << 20));
  b.begin_step(1);  // (30 - 2) / 2 = 14 MiB
  CHECK(b.grant(P::Activations, 14 << 20));
  CHECK_FALSE(b.grant(P::Activations, 1));
}
