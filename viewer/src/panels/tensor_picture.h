// tensor_picture.h: a recorded tensor drawn as the picture it is, from any
// page (Replay's batch grid and transforms, the Loss page's per-sample
// tooltip). Non-blocking: while the values are read it reserves the space
// and draws nothing; a tensor that is not a picture, or whose values were not
// kept, says so as its shape and dtype.
//
// Decoded values are the model's (RunModel::values(): one bounded cache for
// every page).
#pragma once

#include <cstdint>
#include <string>

#include "picture_textures.h"
#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

/// Draws tensor `id` of `step` fitted into `side` x `side` (a picture), or
/// its shape. `row` >= 0: that row of a batch ("(row not kept)" past the
/// rows kept). With `textures` and `uploader`, drawn as one texture of
/// `textures` (named by run, tensor and row, uploaded once).
void draw_tensor_picture(RunModel& model, uint64_t run, int64_t id, int step, float side, int row = -1,
                         PictureTextures* textures = nullptr, widgets::TextureUploader* uploader = nullptr);

}  // namespace tvis::viewer
