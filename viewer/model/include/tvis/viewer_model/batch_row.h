// batch_row.h: which recorded tensor holds row `row` of a step's batch, for
// drawing that row (the Loss page's sample pictures): the batch as
// step_batch() finds it (the DataLoader fetch's outputs, else the first
// forward call's inputs), its first part.
//
// Contract: non-blocking; Found only when that tensor's leading dimension is
// `rows` (the batch is one row per loss row: pictures, not tokens), it has
// at least one more dimension, and its kept values hold `row` (every value,
// or leading rows past `row`). Whether the row is a picture is the caller's
// to judge from row_shape.
#pragma once

#include <cstdint>
#include <vector>

namespace tvis::viewer {

class RunModel;

struct BatchRow {
  enum class State {
    PlanLoading,  // the step's events are still read
    Loading,      // the batch tensor's record is still read
    None,         // no batch, or not one row per loss row, or the row's values not kept
    Found,
  };
  State state = State::None;
  uint64_t tensor = 0;             // the batch tensor's id (Found)
  std::vector<int64_t> row_shape;  // its shape without dim 0 (Found)
};

BatchRow batch_row(RunModel& model, int step, int64_t row, int64_t rows);

}  // namespace tvis::viewer
