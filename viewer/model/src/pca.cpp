#include "tvis/viewer_model/pca.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
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
  // The smaller of the Gram matrix X Xᵀ (n x n) and the scatter XᵀX (d x d)
  // has the squared singular values as eigenvalues (ascending); coordinates
  // are U σ = X_c v for the scatter's eigenvectors v, or the Gram's u·σ.
  const bool gram = n <= d;
  const Eigen::MatrixXd m = gram ? Eigen::MatrixXd(x * x.transpose()) : Eigen::MatrixXd(x.transpose() * x);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  const Eigen::VectorXd& lambda = eig.eigenvalues();
  const double total = std::max(0.0, lambda.sum());
  const int size = static_cast<int>(lambda.size());
  out.points.assign(static_cast<size_t>(n) * 2, 0.0);
  for (int k = 0; k < 2 && k < size; ++k) {
    const int col = size - 1 - k;
    const double var = std::max(0.0, lambda(col));
    Eigen::VectorXd coord = gram ? Eigen::VectorXd(eig.eigenvectors().col(col) * std::sqrt(var))
                                 : Eigen::VectorXd(x * eig.eigenvectors().col(col));
    if (var <= total * 1e-24) coord.setZero();  // rank below k + 1: no k-th direction
    int biggest = 0;
    for (int i = 1; i < n; ++i)
      if (std::abs(coord(i)) > std::abs(coord(biggest))) biggest = i;
    const double sign = coord(biggest) < 0 ? -1.0 : 1.0;
    for (int i = 0; i < n; ++i) out.points[static_cast<size_t>(i) * 2 + k] = sign * coord(i);
    out.explained[k] = total > 0 ? var / total : 0.0;
  }
  return out;
}

}  // namespace tvis::viewer
