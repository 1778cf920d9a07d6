// embeddings_cloud.cpp: module_cloud() and table_cloud()
// (embeddings_shown.h): a module's pooled rows of every recorded step (or
// an nn.Embedding table's rows) gathered once decoded, thinned to at most
// kMaxPoints, and their PCA, kept in EmbeddingsState::cache.
#include <algorithm>
#include <chrono>
#include <climits>

#include "embeddings_shown.h"

namespace tvis::viewer {

namespace {

constexpr int kMaxTableRows = 4096;  // a table's leading rows projected
// Points projected of one module's rows (the PCA runs inside a frame): past
// it every followed sample's point stays and the other rows are thinned to
// every k-th, evenly over the steps.
constexpr int kMaxPoints = 8192;

double elapsed_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The label of batch row `k` of `e` (its class, else the followed sample's).
std::string row_label(const EmbeddingEntry& e, size_t k, int followed) {
  if (k < e.row_labels.size() && !e.row_labels[k].empty()) return e.row_labels[k];
  return followed >= 0 && static_cast<size_t>(followed) < e.labels.size() ? e.labels[followed] : "";
}

// Appends the rows of `d` ([rows, dim]) to `x`; false (and `c` says why)
// when they are not [rows, dim] or their width differs from `*dim`'s.
bool take_rows(const DecodedTensor& d, const std::string& module, int* dim, std::vector<double>& x, EmbeddingCloud& c) {
  if (!d.error.empty() || d.values.shape.size() != 2) {
    c = {false, module + ": " + (d.error.empty() ? "vectors are not [rows, dim]" : d.error)};
    return false;
  }
  const int d_here = static_cast<int>(d.values.shape[1]);
  if (*dim >= 0 && d_here != *dim) {
    c = {false, module + ": vectors of " + std::to_string(*dim) + " and " + std::to_string(d_here) + " dims"};
    return false;
  }
  *dim = d_here;
  x.insert(x.end(), d.values.values.begin(), d.values.values.begin() + static_cast<size_t>(d.values.shape[0]) * d_here);
  return true;
}

// Keeps at most kMaxPoints of `c`'s points (rows of `x`, `dim` wide): every
// followed one, and every k-th other.
void thin(EmbeddingCloud& c, std::vector<double>& x, int dim) {
  const int n = static_cast<int>(c.samples.size());
  if (n <= kMaxPoints) return;
  int followed = 0;
  for (int v : c.samples) followed += v >= 0;
  const int room = std::max(1, kMaxPoints - followed), others = n - followed;
  const int every = (others + room - 1) / room;
  EmbeddingCloud kept;
  std::vector<double> y;
  for (int i = 0, other = 0; i < n; ++i) {
    if (c.samples[i] < 0 && other++ % every != 0) continue;
    kept.steps.push_back(c.steps[i]);
    kept.samples.push_back(c.samples[i]);
    kept.rows.push_back(c.rows[i]);
    kept.labels.push_back(c.labels[i]);
    y.insert(y.end(), x.begin() + static_cast<size_t>(i) * dim, x.begin() + static_cast<size_t>(i + 1) * dim);
  }
  c.steps = std::move(kept.steps);
  c.samples = std::move(kept.samples);
  c.rows = std::move(kept.rows);
  c.labels = std::move(kept.labels);
  x = std::move(y);
}

}  // namespace

// Gathers the module's vectors of every step: every recorded batch row where
// the record has them (followed ones marked with their sample id), else the
// followed samples alone (older files); the PCA once all are decoded.
EmbeddingCloud& module_cloud(AppState& s, InsightsState& st, const std::string& module) {
  EmbeddingCloud& c = st.embeddings.cache[module];
  if (!c.loading) return c;
  std::vector<double> x;
  int dim = -1;
  EmbeddingCloud next;
  for (const EmbeddingEntry& e : s.model.insights().embeddings()) {
    if (e.module != module) continue;
    const bool batch = !e.rows.empty();
    const std::shared_ptr<const DecodedTensor> decoded = decoded_tensor(s, batch ? e.batch_vectors : e.vectors, e.step);
    const DecodedTensor& d = *decoded;
    if (d.loading) return c;
    const size_t before = x.size();
    if (!take_rows(d, module, &dim, x, c)) return c;
    const int rows = static_cast<int>(d.values.shape[0]);
    const int have = std::min(rows, static_cast<int>(batch ? e.rows.size() : e.samples.size()));
    x.resize(before + static_cast<size_t>(have) * dim);
    for (int r = 0; r < have; ++r) {
      int followed = -1;  // index into e.samples
      if (batch) {
        for (size_t k = 0; k < e.positions.size() && k < e.samples.size(); ++k)
          if (e.positions[k] == e.rows[r]) followed = static_cast<int>(k);
      } else {
        followed = r;
      }
      next.steps.push_back(e.step);
      next.samples.push_back(followed >= 0 ? e.samples[followed] : -1);
      next.rows.push_back(batch ? e.rows[r] : r < static_cast<int>(e.positions.size()) ? e.positions[r] : -1);
      next.labels.push_back(batch ? row_label(e, r, followed)
                                  : r < static_cast<int>(e.labels.size()) ? e.labels[r] : "");
    }
  }
  next.recorded = static_cast<int>(next.samples.size());
  thin(next, x, std::max(dim, 0));
  const auto t0 = std::chrono::steady_clock::now();
  next.pca = pca2(x, static_cast<int>(next.samples.size()), std::max(dim, 0));
  next.ms = elapsed_ms(t0);
  next.problem = next.pca.problem.empty() ? "" : module + ": " + next.pca.problem;
  next.loading = false;
  c = std::move(next);
  return c;
}

EmbeddingCloud& table_cloud(AppState& s, InsightsState& st, const EmbeddingTableEntry& t) {
  EmbeddingCloud& c = st.embeddings.cache["table:" + t.module];
  if (!c.loading) return c;
  const std::shared_ptr<const DecodedTensor> decoded = decoded_tensor(s, t.rows, INT32_MIN);
  const DecodedTensor& d = *decoded;
  if (d.loading) return c;
  if (!d.error.empty() || d.values.shape.size() != 2) {
    c = {false, t.module + ": " + (d.error.empty() ? "the table is not [rows, dim]" : d.error)};
    return c;
  }
  const int rows = std::min<int>(static_cast<int>(d.values.shape[0]), kMaxTableRows);
  const int dim = static_cast<int>(d.values.shape[1]);
  std::vector<double> x(d.values.values.begin(), d.values.values.begin() + static_cast<size_t>(rows) * dim);
  EmbeddingCloud next;
  const auto t0 = std::chrono::steady_clock::now();
  next.pca = pca2(x, rows, dim);
  next.ms = elapsed_ms(t0);
  for (int r = 0; r < rows; ++r) {
    next.steps.push_back(-1);
    next.samples.push_back(r);
    next.rows.push_back(r);
    next.labels.push_back(r < static_cast<int>(t.labels.size()) && !t.labels[r].empty() ? t.labels[r] : std::to_string(r));
  }
  next.problem = next.pca.problem.empty() ? "" : t.module + ": " + next.pca.problem;
  next.loading = false;
  c = std::move(next);
  return c;
}

}  // namespace tvis::viewer
