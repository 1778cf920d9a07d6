// Sharded parameters put back together (viewer_model/param_shards.h) against
// hand-worked values: a row split (FSDP2's Shard(0)), a column split
// (RowwiseParallel's Shard(1)), FSDP1's flat ranges with a rank holding none
// of a parameter, replicated parts, and each way a whole cannot be put back
// (a rank without the part, values kept partly, elements on no rank). The
// real recordings are checked end to end by tests/loops/test_sharded.py.
#include <catch2/catch.hpp>

#include <vector>

#include "tvis/viewer_model/param_shards.h"

namespace vw = tvis::viewer;

namespace {

vw::ParamShardInfo box(std::vector<int64_t> whole, std::vector<int64_t> part, std::vector<int64_t> offsets, int coord,
                       const char* placements) {
  vw::ParamShardInfo s;
  s.name = "w";
  s.global_shape = std::move(whole);
  s.local_shape = std::move(part);
  s.offsets = std::move(offsets);
  s.mesh_shape = {2};
  s.mesh_coord = {coord};
  s.placements = placements;
  s.source = "DTensor";
  return s;
}

vw::ParamShardInfo flat(std::vector<int64_t> whole, int64_t start, int64_t n, int coord) {
  vw::ParamShardInfo s = box(std::move(whole), {n}, {}, coord, "FlatShard");
  s.flat_offset = start;
  s.source = "FullyShardedDataParallel";
  return s;
}

vw::TensorValues values(std::vector<double> v, std::vector<int64_t> shape) {
  vw::TensorValues t;
  t.values = std::move(v);
  t.shape = std::move(shape);
  return t;
}

}  // namespace

TEST_CASE("rows split over two ranks are put back in order") {
  const auto a = box({4, 2}, {2, 2}, {0, 0}, 0, "Shard(0)"), b = box({4, 2}, {2, 2}, {2, 0}, 1, "Shard(0)");
  const auto va = values({1, 2, 3, 4}, {2, 2}), vb = values({5, 6, 7, 8}, {2, 2});
  const vw::AssembledTensor t = vw::assemble_shards({{0, &a, &va}, {1, &b, &vb}});
  REQUIRE(t.ok);
  CHECK(t.shape == std::vector<int64_t>{4, 2});
  CHECK(t.values == std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(t.parts == 2);
  CHECK(t.mean == Approx(4.5));
  CHECK(t.min == 1);
  CHECK(t.max == 8);
  CHECK(vw::shard_words(b) == "shard 2 of 2 (Shard(0), DTensor): rows 2\xE2\x80\x93" "3 of 4");
}

TEST_CASE("columns split over two ranks interleave in each row") {
  const auto a = box({2, 4}, {2, 2}, {0, 0}, 0, "Shard(1)"), b = box({2, 4}, {2, 2}, {0, 2}, 1, "Shard(1)");
  const auto va = values({1, 2, 5, 6}, {2, 2}), vb = values({3, 4, 7, 8}, {2, 2});
  const vw::AssembledTensor t = vw::assemble_shards({{0, &a, &va}, {1, &b, &vb}});
  REQUIRE(t.ok);
  CHECK(t.values == std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(vw::shard_words(a) == "shard 1 of 2 (Shard(1), DTensor): columns 0\xE2\x80\x93" "1 of 4");
}

TEST_CASE("flat ranges, a rank holding none of the parameter, and replicated parts") {
  const auto a = flat({2, 3}, 0, 6, 0), b = flat({2, 3}, 0, 0, 1);
  const auto va = values({1, 2, 3, 4, 5, 6}, {6});
  const vw::AssembledTensor t = vw::assemble_shards({{0, &a, &va}, {1, &b, nullptr}});
  REQUIRE(t.ok);
  CHECK(t.values == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(vw::shard_words(b) == "shard 2 of 2 (FlatShard, FullyShardedDataParallel): empty on this rank");
  const auto r0 = box({3}, {3}, {0}, 0, "Replicate()"), r1 = box({3}, {3}, {0}, 1, "Replicate()");
  const auto v = values({7, 8, 9}, {3});
  const vw::AssembledTensor rep = vw::assemble_shards({{0, &r0, &v}, {1, &r1, &v}});
  REQUIRE(rep.ok);
  CHECK(rep.values == std::vector<double>{7, 8, 9});
  CHECK(vw::shard_words(r1) == "shard 2 of 2 (Replicate(), DTensor): the whole tensor (replicated)");
}

TEST_CASE("a whole that cannot be put back says why") {
  const auto a = box({4, 2}, {2, 2}, {0, 0}, 0, "Shard(0)");
  const auto va = values({1, 2, 3, 4}, {2, 2});
  SECTION("elements on no rank") {
    const vw::AssembledTensor t = vw::assemble_shards({{0, &a, &va}});
    CHECK_FALSE(t.ok);
    CHECK(t.why == "4 of 8 elements are on no rank file read");
  }
  SECTION("a rank without the part") {
    const vw::AssembledTensor t = vw::assemble_shards({{0, &a, &va}, {1, nullptr, &va}});
    CHECK_FALSE(t.ok);
    CHECK(t.why == "rank 1: no placement of the parameter");
  }
  SECTION("values kept partly") {
    auto partial = va;
    partial.partial = true;
    const auto b = box({4, 2}, {2, 2}, {2, 0}, 1, "Shard(0)");
    const vw::AssembledTensor t = vw::assemble_shards({{0, &a, &va}, {1, &b, &partial}});
    CHECK_FALSE(t.ok);
    CHECK(t.why == "rank 1: values not kept in full");
  }
  SECTION("a crafted whole shape asks for no memory") {
    const auto huge = box({int64_t(1) << 40, int64_t(1) << 40}, {2, 2}, {0, 0}, 0, "Shard(0)");
    const vw::AssembledTensor t = vw::assemble_shards({{0, &huge, &va}});
    CHECK_FALSE(t.ok);
    CHECK_THAT(t.why, Catch::Contains("larger than the viewer assembles"));
    const auto negative = box({-4, 2}, {2, 2}, {0, 0}, 0, "Shard(0)");
    CHECK_THAT(vw::assemble_shards({{0, &negative, &va}}).why, Catch::Contains("negative"));
  }
  SECTION("a part outside the whole") {
    const auto b = box({4, 2}, {2, 2}, {3, 0}, 1, "Shard(0)");
    const vw::AssembledTensor t = vw::assemble_shards({{0, &a, &va}, {1, &b, &va}});
    CHECK_FALSE(t.ok);
    CHECK(t.why == "rank 1: the part lies outside the whole");
  }
}
