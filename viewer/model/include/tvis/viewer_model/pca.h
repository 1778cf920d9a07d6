// pca.h: the two leading principal components of n points in d dimensions
// (embeddings: one row per captured sample, or an embedding table's rows).
//
// Method: the rows are centred (column means subtracted); with X_c = U Σ Vᵀ
// the coordinates are U[:, k] σ_k (= X_c V[:, k]), taken from Eigen's
// SelfAdjointEigenSolver of the smaller of X_c X_cᵀ and X_cᵀ X_c (eigenvalues
// σ², measured 5-20x faster than BDCSVD here) and `explained[k]` = σ_k² / Σ σ_j², the share of the total
// variance along component k. Signs are fixed so that each component's
// coordinate of largest magnitude is positive (SVD leaves them free; this makes
// the picture stable across layers and runs). Why in the viewer and not the
// recorder: tools/bench/results/insights.md (measured with bench_insights).
//
// Contracts: n >= 2 and d >= 1, values.size() >= n * d, every value finite;
// otherwise `problem` says which and nothing is computed. With d == 1 (or a
// rank-1 cloud) the second coordinate is 0 and explained[1] is 0.
#pragma once

#include <string>
#include <vector>

namespace tvis::viewer {

struct Pca2 {
  int n = 0;
  std::vector<double> points;     // n x 2, row-major
  double explained[2] = {0, 0};   // variance shares of components 1 and 2
  std::string problem;            // "" when computed
};

/// PCA of the n x d row-major matrix `values`.
Pca2 pca2(const std::vector<double>& values, int n, int d);

}  // namespace tvis::viewer
