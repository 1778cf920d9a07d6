// attention_rollout.h: arithmetic on attention weights as recorded
// (AttentionRecord: one sample's [H, T, S] softmax, or [1, T, T]). Pure
// functions over decoded values: no chunk reads.
//
//   head_mean      A[t][s] = mean over h of W[h][t][s]
//   rollout        the attention rollout of Abnar & Zuidema (2020) over a
//                  range of layers, first to last in forward order:
//                    Â_l = rownorm(mean_h W_l + I),  R = Â_last · … · Â_first
//                  (rownorm divides each row by its sum). Row t of R says how
//                  much output token t draws, through every layer of the
//                  range, on each input token.
//
// Contracts: every layer must be square and of the same T (else `problem`
// names the first that is not, and nothing is computed); a row summing to 0
// after the identity is added cannot happen (its diagonal is >= 1).
#pragma once

#include <string>
#include <vector>

namespace tvis::viewer {

/// One layer's weights for one sample: heads x rows x cols, row-major.
struct AttentionWeights {
  int heads = 0, rows = 0, cols = 0;
  std::vector<double> w;  // heads * rows * cols
  /// Weight of head `h` (or the mean over heads when h < 0) at (r, c).
  double at(int h, int r, int c) const;
};

/// Builds AttentionWeights from decoded values of shape [H, T, S] or [T, S];
/// `problem` says why not (another rank, too few values).
AttentionWeights attention_weights(const std::vector<double>& values, const std::vector<int64_t>& shape,
                                   std::string* problem);

/// The rows x cols mean over heads.
std::vector<double> head_mean(const AttentionWeights& a);

/// The rollout over `layers` (forward order), T x T row-major; empty with
/// *problem set when a layer is not square or T differs.
std::vector<double> attention_rollout(const std::vector<const AttentionWeights*>& layers, std::string* problem);

/// The patch grid of an image model's T tokens: side n when T = n^2, or
/// T = n^2 + 1 with [CLS] first (*cls set); 0 when T is neither (n >= 2).
int patch_grid_side(int t, bool* cls);

/// Row `query` of `square` (T x T, row-major) laid on the n x n patch grid
/// (T = n^2 + cls): where token `query` looks, [CLS]'s own column left out.
std::vector<double> query_row_on_grid(const std::vector<double>& square, int t, int query, int n, bool cls);

/// True when every entry above the diagonal is exactly 0 and some entry
/// below it is not: a causal mask (a token sees only itself and earlier ones).
bool is_causal(const std::vector<double>& square, int t);

/// True when `mask` (T x T, nonzero = masked) masks exactly the entries above the diagonal.
bool is_causal_mask(const std::vector<double>& mask, int t);

}  // namespace tvis::viewer
