#include "tvis/viewer_model/pca.h"

#include <Eigen/SVD>
#include <cmath>

namespace tvis::viewer {

Pca2 pca2(const std::vector<double>& values, int n, int d) {
  Pca2 out;
  out.n = n;
  if (n < 2 || d < 1) {
    out.problem = "PCA needs at least 2 points of at least 1 dimension (got " + std::to_string(n) + " x " +
                  std::to_string(d) + ")";
    return out;
  }
  if (values.size() < static_cast<size_t>(n) * d) {
    out.problem = "PCA input holds " + std::to_string(values.size()) + " values, fewer than " + std::to_string(n) +
                  " x " + std::to_string(d);
    return out;
  }
  for (size_t i = 0; i < static_cast<size_t>(n) * d; ++i)
    if (!std::isfinite(values[i])) {
      out.problem = "PCA input has a non-finite value (row " + std::to_string(i / d) + ")";
      return out;
    }
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix x = Eigen::Map<const Matrix>(values.data(), n, d);
  x.rowwise() -= x.colwise().mean();
  Eigen::BDCSVD<Matrix> svd(x, Eigen::ComputeThinU);
  const auto& sigma = svd.singularValues();
  const auto& u = svd.matrixU();
  const double total = sigma.squaredNorm();
  out.points.assign(static_cast<size_t>(n) * 2, 0.0);
  for (int k = 0; k < 2 && k < sigma.size(); ++k) {
    int biggest = 0;
    for (int i = 1; i < n; ++i)
      if (std::abs(u(i, k)) > std::abs(u(biggest, k))) biggest = i;
    const double sign = u(biggest, k) < 0 ? -1.0 : 1.0;
    for (int i = 0; i < n; ++i) out.points[static_cast<size_t>(i) * 2 + k] = sign * u(i, k) * sigma(k);
    out.explained[k] = total > 0 ? sigma(k) * sigma(k) / total : 0.0;
  }
  return out;
}

}  // namespace tvis::viewer
