// followed_sample.h: where a followed sample is in one step's batch and
// which tensor is its picture: one answer for the layer panel, Replay's
// data view, Loss and the insight pages.
//
// The rules:
//   - sample < 0 means the run follows none and the caller shows the
//     batch's leading row: row 0, no picture.
//   - A run with no Samples chunks at all (a script that builds its batches
//     without a DataLoader) names batch rows as sample ids (the recorder
//     follows the first rows under ids = rows): row = sample, no picture.
//   - Otherwise the sample's record at that step says: its batch_position,
//     and its picture, the output of the last pipeline stage that was a PIL
//     image (before ToTensor / Normalize), else the sample as batched. While
//     the step's Samples chunks are read, or when the sample is not in that
//     batch, row is -1.
#pragma once

#include <cstdint>
#include <optional>

namespace tvis::viewer {

class RunModel;

struct SampleAtStep {
  int row = -1;                     // batch row; -1: loading, or not in this step's batch
  std::optional<uint64_t> picture;  // tensor id of its picture, when recorded
  bool complete = true;             // false while a Samples chunk of the step is read
};

SampleAtStep sample_at_step(RunModel& model, int step, int sample);
/// sample_at_step(...).row.
int sample_row(RunModel& model, int step, int sample);

}  // namespace tvis::viewer
