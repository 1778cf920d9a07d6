// weights_state.h: what the Weights page remembers between frames
// (its PageState, replaced when another run opens). The page's files:
// weights_page.cpp (layout, registration), weights_one_param.cpp (one
// parameter), weights_figures.cpp, weights_values.cpp, weights_view.cpp
// (view and commands) with weights_parts.h between them,
// weights_all_layers.cpp (the thumbnail grid), weights_image.cpp (a
// parameter's values as the image drawn: conv kernels as a filter x
// input-channel grid, matrices, vectors; thumbnails block-reduced).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../app_state.h"
#include "tvis/viewer_model/optimizer_steps.h"
#include "tvis/viewer_model/rank_comparison.h"
#include "tvis/viewer_model/tensor_index.h"
#include "tvis/widgets/heatmap.h"

namespace tvis::viewer {

enum class WeightShow { Weight, Grad, Update };
enum class WeightSort { Name, Size, UpdateRatio };

/// A tensor's values laid out as the image the page draws.
struct WeightImage {
  int rows = 0, cols = 0;
  std::vector<double> values;  // rows * cols
  // Conv kernels [O, I, kh, kw]: the image is O*kh x I*kw, one kh x kw tile
  // per (filter, input channel); 0 otherwise.
  int tile_rows = 0, tile_cols = 0;
  bool vector = false;         // a 1-D tensor (drawn as bars when shown alone)
};

/// One parameter's thumbnail in "All layers", for (show, step).
struct Thumbnail {
  std::string key;              // what it shows: show/step
  bool ready = false;
  std::string why;              // no values (statistics only, not recorded)
  WeightImage image;            // block-reduced to at most kThumbSide a side
  std::unique_ptr<widgets::HeatmapTexture> texture = std::make_unique<widgets::HeatmapTexture>();
  uint64_t version = 0;
};

/// One decoded (param, show, step) of the single-parameter view: the full
/// image (exact hover values) and a copy reduced to at most kShownSide a side
/// (what is uploaded and drawn), so sliding back to a step costs nothing.
struct ShownImage {
  std::string error;   // why there are no values ("" = values)
  bool partial = false;  // only the leading rows were kept
  WeightImage full;
  WeightImage shown;
  widgets::ColorRange range;  // symmetric, over the full image
  uint64_t version = 0;       // the texture's data_version
  uint64_t used = 0;          // frame it was last drawn (LRU)
};

/// A parameter at one step on every rank of a distributed run
/// (weights_ranks.cpp): the comparison and each rank's image, small.
struct RanksImage {
  WeightAcrossRanks across;
  std::vector<WeightImage> images;  // per rank, reduced to kRankSide a side (empty: no values)
  widgets::ColorRange range;        // one range over every rank
  WeightImage assembled;            // a sharded parameter's whole, reduced to kShownSide a side (empty: none)
};
constexpr int kRankSide = 64;

constexpr int kShownSide = 512;
constexpr size_t kShownCached = 6;

struct WeightsState : PageState {
  std::string param;            // "" until the first parameter is known
  WeightShow show = WeightShow::Weight;
  bool all_layers = false;
  bool all_layers_request = false;  // the tab to select next frame
  WeightSort sort = WeightSort::Name;
  // The single-parameter view's decoded images, by "param/show/step".
  std::map<std::string, ShownImage> images;
  uint64_t frames = 0;
  uint64_t versions = 0;
  widgets::HeatmapTexture texture;
  std::map<std::string, Thumbnail> thumbs;  // by parameter name
  std::map<std::string, RanksImage> ranks;  // by "param/step", once every rank's values are read
  float thumbs_scroll = -1;     // a scroll position asked for (tests, benchmarks); < 0 none
  int thumbs_drawn = 0;         // thumbnails drawn with their image last frame
  int thumbs_visible = 0;       // thumbnails in view last frame
};

constexpr int kThumbSide = 48;
constexpr int kThumbSamples = 16;  // values a thumbnail pixel is chosen from, for big tensors

WeightsState& weights_state(AppState& s);
const char* show_name(WeightShow show);  // "weight", "grad", "update"
/// The tensor id `show` names in `p` (-1: none recorded).
int64_t shown_tensor(const ParamTensors& p, WeightShow show);
/// The image of `values` (shape as kept) for the single-parameter view.
WeightImage weight_image(const TensorValues& values);
/// `full` block-reduced to at most `side` a side (the value farthest from
/// each block's mean, as heatmaps do).
WeightImage reduce_image(const WeightImage& full, int side);
/// A thumbnail of `values` at most `side` a side: reduce_image() of the
/// whole image while it has at most side² x kThumbSamples cells; beyond,
/// each pixel is the value farthest from the mean of kThumbSamples values
/// of its block on a regular grid (the cost stays fixed however big the
/// tensor; a lone spike between the samples does not show in the
/// thumbnail, only in the open parameter).
WeightImage thumbnail_image(const TensorValues& values, int side);

/// One row of the parameter list / one thumbnail: a parameter at the
/// Selection's step.
struct ParamRow {
  std::string name;
  std::string shape;  // "[64, 3, 7, 7]", "" while its record loads
  int64_t size = -1;  // elements, -1 while unknown
  double ratio = 0;   // ‖Δw‖/‖w‖, NaN when unknown
  bool here = false;  // updated at this step
};
/// Every parameter the run names, sorted as `w.sort` says.
std::vector<ParamRow> param_rows(AppState& s, WeightsState& w);
/// TensorIndex lookup at `step`; sets *loading when its chunk is still read.
TensorRef tensor_at(AppState& s, int64_t id, int step, bool* loading);

void draw_all_layers(AppState& s, WeightsState& w);

/// A distributed run: `param` at `step` on every rank, or nullptr while any
/// rank's values load (and for a run of one file).
const RanksImage* ranks_image(AppState& s, WeightsState& w, const std::string& param, int step);
/// The one-parameter view's "Across ranks" strip: each rank's values side by
/// side and the largest |difference| between ranks, said in words.
void draw_across_ranks(AppState& s, WeightsState& w, const std::string& param, int step);
/// state()["view"]["across_ranks"] (null for a run of one file).
nlohmann::json across_ranks_view(AppState& s, WeightsState& w, const std::string& param, int step);

}  // namespace tvis::viewer
