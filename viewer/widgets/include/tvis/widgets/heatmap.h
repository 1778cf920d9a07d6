// heatmap.h: a 2-D array of values drawn as a coloured image, with a colour
// bar, hover values and NaN/Inf marking.
//
// Usage:
//   static HeatmapTexture tex;                       // one per shown heatmap
//   HeatmapOptions o;
//   o.colormap = Colormap::Diverging; o.symmetric = true;   // gradients
//   o.uploader = shell_uploader; o.texture = &tex; o.data_version = chunk_id;
//   HeatmapResult h = heatmap("##w", ValueSpan(slice.values), slice.rows, slice.cols, o);
//   if (h.clicked) select(h.row, h.col);
//
// Contracts:
// - values is row-major rows x cols (values.size() >= rows * cols); a short
//   span draws a one-line error in the frame instead of the image.
// - Colour range: opts.range when has_range, else the finite min/max (or
//   +/-max|v| when symmetric). NaN is drawn magenta, +/-Inf white
//   (colormap.h); they never change the range.
// - keep_aspect: cells are square and the image fits the frame; a side that
//   would be thinner than 16 px is stretched to 16 px (1-D slices stay visible).
// - Drawing path: with an uploader and a texture, one texture of the (block
//   reduced) image is drawn with AddImage and re-uploaded only when the data
//   pointer, shape, data_version, colormap or range change: bump data_version
//   whenever the content behind the same pointer changes. Without them (or
//   for grids of at most kRectPathMaxCells cells, or when create fails) cells
//   are filled rectangles. When cells are smaller than a pixel (or the image
//   is larger than kMaxTextureSide), blocks of cells are merged into one
//   rectangle / texel showing the block's value farthest from the block's
//   mean (a spike in a calm block survives, like plot decimation); a block
//   with a NaN shows NaN, else one with an Inf shows Inf.
// - Hover (mouse over the image) reports the exact cell and its value and
//   shows a tooltip "row r, col c = %.9g".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "imgui.h"
#include "tvis/widgets/colormap.h"
#include "tvis/widgets/texture_uploader.h"
#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

constexpr int kRectPathMaxCells = 32 * 32;

// A caller-owned cache of one heatmap's texture. Fields are managed by
// heatmap(); read them, don't write them. Destroying it (or release())
// destroys the texture through the uploader that created it.
struct HeatmapTexture {
    HeatmapTexture() = default;
    HeatmapTexture(const HeatmapTexture&) = delete;
    HeatmapTexture& operator=(const HeatmapTexture&) = delete;
    ~HeatmapTexture() { release(); }
    void release();

    TextureUploader* uploader = nullptr;
    ImTextureID id = nullptr;
    int width = 0, height = 0;  // texture size in texels
    std::uint64_t uploads = 0;  // create + update calls made so far
    // What the texture shows (the cache key).
    const void* data = nullptr;
    int rows = 0, cols = 0;
    std::uint64_t version = 0;
    Colormap colormap = Colormap::Sequential;
    ColorRange range;
};

struct HeatmapOptions {
    ImVec2 size = ImVec2(0.0f, 0.0f);  // x <= 0: available width; y <= 0: 256 px
    Colormap colormap = Colormap::Sequential;
    bool symmetric = false;
    bool has_range = false;
    ColorRange range;
    bool keep_aspect = true;
    bool show_colorbar = true;
    bool show_tooltip = true;
    TextureUploader* uploader = nullptr;
    HeatmapTexture* texture = nullptr;
    std::uint64_t data_version = 0;
    // Optional names of rows / columns (e.g. tokens), shown in the tooltip;
    // null or rows / cols entries.
    const char* const* row_labels = nullptr;
    const char* const* col_labels = nullptr;
};

struct HeatmapResult {
    bool hovered = false;   // mouse over a cell
    bool clicked = false;   // left button pressed on a cell this frame
    int row = -1, col = -1; // the hovered cell
    double value = 0.0;     // its exact value
    ColorRange range;       // the colour range used
    ImVec2 image_min, image_max;  // screen rectangle of the image
    bool used_texture = false;    // drawn with AddImage
    std::size_t rects = 0;        // filled rectangles submitted (rect path)
};

HeatmapResult heatmap(const char* id, ValueSpan values, int rows, int cols, const HeatmapOptions& opts = {});

// The RGBA8 image a heatmap uploads: rows x cols texels, or blocks of cells
// merged (as above) so that neither side exceeds max_side. Returns false (and
// writes nothing) when the shape is empty or values is too short.
bool heatmap_rgba(ValueSpan values, int rows, int cols, Colormap map, ColorRange range, int max_side,
                  std::vector<std::uint8_t>* rgba, int* width, int* height);

// The value a block of cells [r0, r1) x [c0, c1) is shown with (see above).
// range is unused (kept so callers need not change if the rule does).
double heatmap_block_value(ValueSpan values, int cols, int r0, int r1, int c0, int c1, ColorRange range);

// A vertical colour bar of the map over the range, with three labels.
void colorbar(ImDrawList* dl, ImVec2 min, ImVec2 max, Colormap map, ColorRange range);
// Width a colour bar of the range needs, labels included.
float colorbar_width(ColorRange range);

}  // namespace tvis::widgets
