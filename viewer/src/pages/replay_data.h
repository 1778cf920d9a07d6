// replay_data.h: what Replay's data phase shows, as plain values computed
// from model queries: the step's batch as loaded (batch_shown) and the
// followed sample through its dataset's transforms (sample_shown).
//
// Contract: both are pure reads of the model at (step, row / sample); they
// keep nothing and draw nothing, and ask for what is not read yet (a
// record, a Samples chunk) the way the model's queries do. The data view
// (replay_data_view.cpp) draws from them, and replay_data_json()
// (replay_data_json.cpp) builds view.data from the same values when
// state() asks, so the test surface says what a frame draws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../app_state.h"
#include "../panels/picture.h"
#include "tvis/viewer_model/step_stops.h"

namespace tvis::viewer {

/// At most this many of the batch's rows are drawn.
inline constexpr int kBatchRowsDrawn = 64;

/// The batch of a step as the data view shows it: the first part of the
/// DataLoader fetch's outputs, else of the first forward call's inputs
/// (step_batch()).
struct BatchShown {
  enum class State {
    Loading,      // the step's plan or the batch tensor's record is still read
    NoFetch,      // no DataLoader fetch and no model input: the script built its batches
    NotRecorded,  // a fetch whose tensors were not recorded
    Scalar,       // a 0-d first part: no rows (tensor and dtype only)
    Shown,        // the batch: every field below
  };
  enum class DrawnAs { Images, TokenIds, Values };

  State state = State::Loading;
  TensorRef tensor;             // the first part (Scalar, Shown)
  Shape shape;                  // its dims (Shown)
  bool from_loader = false;     // held by the DataLoader fetch; else the model's input
  size_t parts = 0;             // the holder's tensors (outputs or inputs)
  int followed_row = -1;        // the followed sample's row, as the caller gave it
  int64_t rows_kept = 0;        // rows with values kept; 0: only statistics kept
  int rows_drawn = 0;           // min(rows_kept, kBatchRowsDrawn)
  PictureLayout row_layout;     // one row as a picture (ok: drawn as images)
  bool integer = false;         // an int32 / int64 tensor (drawn as token ids unless images)
  DrawnAs drawn_as = DrawnAs::Values;
  size_t row_size = 1;          // values per row (the product of the dims past the first)
};

/// The batch of `step`, `followed_row` marked (sample_row() of the followed sample).
BatchShown batch_shown(AppState& s, int step, int followed_row);
/// "images", "token ids" or "values".
const char* drawn_as_label(BatchShown::DrawnAs a);

/// One transform the followed sample went through, and its output.
struct StageShown {
  std::string name;          // the transform's repr, arguments included ("transform" when not recorded)
  std::string class_name;    // its class (the repr up to '(' when not recorded)
  int64_t output = -1;       // tensor id of its output (-1: not recorded)
  ValueKind output_kind = ValueKind::Tensor;
  bool current = false;      // its call is the stop shown
};

/// The followed sample at a step: its record and the stages of its pipeline.
struct SampleShown {
  enum class State {
    NotFollowed,  // the run follows no samples (sample < 0)
    Missing,      // not in this step's batch, or its record is loading
    Shown,
  };
  State state = State::NotFollowed;
  int id = -1;
  int64_t dataset_index = -1;
  int batch_row = -1;
  std::string label;                // "" when none
  int64_t item = -1;                // tensor id of the dataset's item (before the first transform)
  std::vector<StageShown> stages;   // in the order they ran; empty: returned as stored
};

/// Sample `sample` of `step`; the stage whose call is `current_event` is current.
SampleShown sample_shown(AppState& s, int step, int sample, uint64_t current_event);

/// The data phase at stop `here` of `step`: the followed sample (the
/// application's, replay_sample()) and the batch with its row marked.
struct DataShown {
  BatchShown batch;
  SampleShown sample;
};
DataShown data_shown(AppState& s, int step, const Stop& here);

}  // namespace tvis::viewer
