// insights.h: the run's insight records (attention weights, Grad-CAM maps,
// per-sample embeddings, embedding tables, library attention), found lazily
// in its Insights chunks and copied out as plain structs.
//
// Contract: non-blocking; each call indexes the Insights chunks that have
// arrived (asking for the rest) and answers what is known so far; ready()
// turns true once every Insights chunk was indexed or failed. Lists keep the
// recorder's order (which is forward order within a step). Tensor ids name
// TensorRecords read through TensorIndex; a record whose strings or vectors
// are missing is kept with empty fields (never dropped, never a crash).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/viewer_model/chunk_scan.h"

namespace tvis::viewer {

class RunModel;

struct InsightKinds {
  bool attention = false;   // AttentionRecord or LibraryAttention
  bool gradcam = false;     // GradCamRecord
  bool embeddings = false;  // EmbeddingRecord or EmbeddingTableRecord
};

/// One AttentionRecord: a followed sample's softmax weights [H, T, S] in one module call.
struct AttentionEntry {
  int step = 0;
  std::string module;
  uint64_t event = 0;
  int sample = -1;
  std::vector<int64_t> shape;        // the batch's shape as computed ([B, H, T, S] or [B, T, T])
  uint64_t weights = 0;              // tensor id of this sample's [H, T, S]
  std::vector<int64_t> tokens;       // the sample's input token ids (empty: not a token model)
  std::vector<std::string> labels;   // their labels (empty: no vocabulary found)
  bool rebuilt = false;              // true: softmax(q kᵀ · scale + mask) rebuilt from a fused kernel's
                                     // inputs; false: a softmax's own result (captured)
  std::string kind;                  // the call that computed it ("": the project's own softmax)
  int64_t mask = -1;                 // tensor id of [T', S'] bool, true where masked (-1: no mask recorded)
  std::vector<int64_t> full;         // [T, S] before the leading [T', S'] were kept (empty: all kept)
  float dropout = 0;                 // the kernel's dropout p (the weights are before it)
};

/// "captured from your softmax", "rebuilt from q, k of F.scaled_dot_product_attention", ...:
/// how the weights of `e` were obtained, as the page says it.
std::string attention_origin(const AttentionEntry& e);

/// One GradCamRecord: a [h, w] map for (step, conv layer, sample, class).
struct GradCamEntry {
  int step = 0;
  std::string module;
  int sample = -1;
  bool true_class = false;  // false: the predicted class
  int64_t class_index = 0;
  uint64_t map = 0;         // tensor id, [h, w]
};

/// One EmbeddingRecord: the followed samples' pooled vectors at one module,
/// and (files that have them: `rows` not empty) every recorded batch row's.
struct EmbeddingEntry {
  int step = 0;
  std::string module;
  std::vector<int> samples;
  std::vector<std::string> labels;
  uint64_t vectors = 0;  // tensor id, [samples, dim]
  std::vector<int> positions;           // batch row of each of `samples` (empty: unknown)
  std::vector<int> rows;                // batch row of each row of batch_vectors (empty: none)
  std::vector<std::string> row_labels;  // class of each of `rows` ("" unknown)
  uint64_t batch_vectors = 0;           // tensor id, [rows, dim'] (meaningful when rows is not empty)
  int batch_size = 0;                   // rows of the batch
};

/// One EmbeddingTableRecord: an nn.Embedding's leading rows.
struct EmbeddingTableEntry {
  std::string module;
  uint64_t rows = 0;  // tensor id, [rows, dim]
  std::vector<std::string> labels;
};

/// Attention computed inside torch (no weights): where, and by what.
struct LibraryAttentionEntry {
  std::string module;
  std::string kind;  // "nn.MultiheadAttention", ...
};

class Insights {
 public:
  explicit Insights(RunModel& model) : model_(model) {}
  void reset();
  bool ready();
  /// The kinds found so far (final once ready()).
  const InsightKinds& kinds();

  // The records indexed so far (final once ready()).
  const std::vector<AttentionEntry>& attention() { return ready(), attention_; }
  const std::vector<GradCamEntry>& gradcam() { return ready(), gradcam_; }
  const std::vector<EmbeddingEntry>& embeddings() { return ready(), embeddings_; }
  const std::vector<EmbeddingTableEntry>& tables() { return ready(), tables_; }
  const std::vector<LibraryAttentionEntry>& library_attention() { return ready(), library_; }

 private:
  RunModel& model_;
  ChunkScan scan_;
  InsightKinds kinds_;
  std::vector<AttentionEntry> attention_;
  std::vector<GradCamEntry> gradcam_;
  std::vector<EmbeddingEntry> embeddings_;
  std::vector<EmbeddingTableEntry> tables_;
  std::vector<LibraryAttentionEntry> library_;
};

}  // namespace tvis::viewer
