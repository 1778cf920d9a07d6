#include <catch2/catch.hpp>

#include "frame_stats.h"

TEST_CASE("frame stats: median and p99 by nearest rank over a window", "[viewer][frame]") {
  tvis::viewer::FrameStats s;
  CHECK(s.median() == 0);
  for (int i = 1; i <= 100; ++i) s.add(i);
  CHECK(s.median() == 50);
  CHECK(s.p99() == 99);
  s.add(-1);  // ignored
  CHECK(s.count() == 100);
  for (int i = 0; i < 1000; ++i) s.add(2.0);
  CHECK(s.count() == tvis::viewer::FrameStats::kWindow);
  CHECK(s.median() == 2.0);
  CHECK(s.p99() == 2.0);
}
