// insights.h: which insight views the run's Insights chunks can feed
// (attention maps, Grad-CAM maps, embeddings), found lazily.
//
// Contract: non-blocking; each call indexes the Insights chunks that have
// arrived (asking for the rest) and answers what is known so far; ready()
// turns true once every Insights chunk was indexed or failed.
#pragma once

#include "tvis/viewer_model/chunk_scan.h"

namespace tvis::viewer {

class RunModel;

struct InsightKinds {
  bool attention = false;   // AttentionRecord or LibraryAttention
  bool gradcam = false;     // GradCamRecord
  bool embeddings = false;  // EmbeddingRecord or EmbeddingTableRecord
};

class Insights {
 public:
  explicit Insights(RunModel& model) : model_(model) {}
  void reset();
  bool ready();
  /// The kinds found so far (final once ready()).
  const InsightKinds& kinds();

 private:
  RunModel& model_;
  ChunkScan scan_;
  InsightKinds kinds_;
};

}  // namespace tvis::viewer
