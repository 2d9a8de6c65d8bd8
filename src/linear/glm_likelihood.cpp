// Probabilities, weights and loss of the logistic and multinomial models,
// computed so that large |eta| neither overflows nor loses the small
// probabilities (log-sum-exp with the row's maximum taken out).
#include "glm_likelihood.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dense_kernels.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs::linear_detail {
namespace {

// Below this the weight of a row is raised to it: a nearly certain row would
// otherwise give a coordinate no curvature. The floor changes the steps, not
// the solution (a point is a fixed point of the steps exactly when it is
// optimal, whatever positive curvature the steps use); glmnet floors too.
constexpr double min_weight = 1e-5;

// Rows per block of the multinomial shift: 256 rows of 10 classes are 20 KB.
constexpr Eigen::Index shift_block = 256;

// The weight of row i (1 without weights).
double weight_of(const ClassTarget& target, Eigen::Index i) {
  return target.weights.size() > 0 ? target.weights[i] : 1.0;
}

void expand_binomial(const Eigen::MatrixXd& eta, const ClassTarget& target, Expansion& out) {
  const Eigen::Index n = eta.rows();
  out.residual.resize(n, 1);
  out.weight.resize(n, 1);
  out.row_weight.resize(0);  // in `weight` already
  double loss = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double e = eta(i, 0);
    const double y = target.labels[static_cast<std::size_t>(i)] == 1 ? 1.0 : 0.0;
    const double w = weight_of(target, i);
    // log(1 + exp(e)) - y e, and p = 1 / (1 + exp(-e)), without overflow.
    const double t = std::exp(-std::abs(e));
    loss += w * (std::max(e, 0.0) + std::log1p(t) - y * e);
    const double p = e >= 0 ? 1.0 / (1.0 + t) : t / (1.0 + t);
    out.residual(i, 0) = w * (y - p);
    // The floor scaled by w: a row of weight 0 has no curvature, as if it
    // were not there.
    out.weight(i, 0) = w * std::max(p * (1.0 - p), min_weight);
  }
  out.loss = loss / static_cast<double>(n);
}

void expand_multinomial(const Eigen::MatrixXd& eta, const ClassTarget& target, Expansion& out) {
  const Eigen::Index n = eta.rows();
  const Eigen::Index classes = eta.cols();
  out.residual.resize(n, classes);
  out.weight.resize(n, classes);
  out.row_weight = target.weights;
  double loss = 0.0;
  Eigen::VectorXd p(classes);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double top = eta.row(i).maxCoeff();
    double sum = 0.0;
    for (Eigen::Index c = 0; c < classes; ++c) {
      p[c] = std::exp(eta(i, c) - top);
      sum += p[c];
    }
    const auto label = static_cast<Eigen::Index>(target.labels[static_cast<std::size_t>(i)]);
    const double w = weight_of(target, i);
    loss += w * (top + std::log(sum) - eta(i, label));
    for (Eigen::Index c = 0; c < classes; ++c) {
      const double prob = p[c] / sum;
      out.residual(i, c) = w * ((c == label ? 1.0 : 0.0) - prob);
      out.weight(i, c) = prob;
    }
  }
  out.loss = loss / static_cast<double>(n);
}

// Least squares as a family: L = ||y - eta||^2 / (2n), residual y - eta,
// curvature 1 per row (the expansion is exact). The rows carry their weights
// already (RowWeighting::ScaledRows), so target.weights is not read.
void expand_gaussian(const Eigen::MatrixXd& eta, const ClassTarget& target, Expansion& out) {
  const Eigen::Index n = eta.rows();
  TOPKFS_ASSERT(target.values.size() == n);
  out.residual = target.values - eta.col(0);
  out.weight = Eigen::MatrixXd::Ones(n, 1);
  out.row_weight.resize(0);
  out.loss = 0.5 * out.residual.squaredNorm() / static_cast<double>(n);
}

}  // namespace

void expand(const Eigen::MatrixXd& eta, const ClassTarget& target, LinearFamily family,
            Expansion& out) {
  if (family == LinearFamily::Gaussian) {
    expand_gaussian(eta, target, out);
    return;
  }
  TOPKFS_ASSERT(static_cast<std::size_t>(eta.rows()) == target.labels.size());
  if (family == LinearFamily::Binomial) {
    expand_binomial(eta, target, out);
  } else {
    expand_multinomial(eta, target, out);
  }
}

void shift(Expansion& e, LinearFamily family, const Eigen::Ref<const Eigen::VectorXd>& column,
           const Eigen::VectorXd& delta) {
  if (family != LinearFamily::Multinomial) {  // one output, a curvature per row
    e.residual.col(0).noalias() -= delta[0] * e.weight.col(0).cwiseProduct(column);
    return;
  }
  // d_i = column_i delta: residual_ic -= column_i p_ic (delta_c - p_i . delta),
  // in blocks of rows small enough that their probabilities are read from
  // memory once for both passes.
  const Eigen::Index n = e.weight.rows();
  const Eigen::Index classes = e.weight.cols();
  double mean[shift_block];
  double weighted[shift_block];
  for (Eigen::Index i0 = 0; i0 < n; i0 += shift_block) {
    const Eigen::Index rows = std::min<Eigen::Index>(shift_block, n - i0);
    std::fill(mean, mean + rows, 0.0);
    for (Eigen::Index c = 0; c < classes; ++c) {
      const double* p = e.weight.col(c).data() + i0;
      for (Eigen::Index i = 0; i < rows; ++i) mean[i] += p[i] * delta[c];
    }
    const double* x = column.data() + i0;
    if (e.row_weight.size() > 0) {  // each row's Hessian times its weight
      for (Eigen::Index i = 0; i < rows; ++i) weighted[i] = x[i] * e.row_weight[i0 + i];
      x = weighted;
    }
    for (Eigen::Index c = 0; c < classes; ++c) {
      const double* p = e.weight.col(c).data() + i0;
      double* r = e.residual.col(c).data() + i0;
      for (Eigen::Index i = 0; i < rows; ++i) r[i] -= x[i] * p[i] * (delta[c] - mean[i]);
    }
  }
}

Eigen::MatrixXd row_curvature(const Expansion& e, LinearFamily family,
                              const Eigen::Ref<const Eigen::VectorXd>& column) {
  const double inv_n = 1.0 / static_cast<double>(e.weight.rows());
  Eigen::VectorXd squares = column.cwiseAbs2();
  if (family != LinearFamily::Multinomial) {
    return Eigen::MatrixXd::Constant(1, 1, e.weight.col(0).dot(squares) * inv_n);
  }
  // sum_i w_i x_i^2 (diag(p_i) - p_i p_i') = diag(P' w x^2) - (r P)'(r P),
  // r = sqrt(w) x.
  Eigen::VectorXd root = column;
  if (e.row_weight.size() > 0) {
    squares.array() *= e.row_weight.array();
    root.array() *= e.row_weight.array().sqrt();
  }
  const Eigen::MatrixXd scaled = e.weight.array().colwise() * root.array();
  Eigen::MatrixXd curvature;
  gram_full(scaled, -inv_n, curvature);
  curvature.diagonal() += e.weight.transpose() * squares * inv_n;
  return curvature;
}

Eigen::MatrixXd block_curvature(const Expansion& e, LinearFamily family,
                                const Eigen::Ref<const Eigen::MatrixXd>& columns) {
  const double inv_n = 1.0 / static_cast<double>(e.weight.rows());
  const Eigen::Index size = columns.cols();
  Eigen::MatrixXd curvature;
  if (family != LinearFamily::Multinomial) {
    const Eigen::MatrixXd scaled = columns.array().colwise() * e.weight.col(0).array().sqrt();
    gram_full(scaled, inv_n, curvature);
    return curvature;
  }
  // Entry (a o + c, b o + d): sum_i w_i x_ia x_ib (p_ic [c = d] - p_ic p_id) / n;
  // the second terms are one Gram matrix of the columns p_c sqrt(w) x_a.
  const Eigen::Index classes = e.weight.cols();
  Eigen::MatrixXd root = columns;
  if (e.row_weight.size() > 0) root.array().colwise() *= e.row_weight.array().sqrt();
  Eigen::MatrixXd scaled(columns.rows(), size * classes);
  for (Eigen::Index a = 0; a < size; ++a) {
    scaled.middleCols(a * classes, classes) = e.weight.array().colwise() * root.col(a).array();
  }
  gram_full(scaled, -inv_n, curvature);
  for (Eigen::Index a = 0; a < size; ++a) {
    for (Eigen::Index b = 0; b < size; ++b) {
      const Eigen::VectorXd diagonal =
          e.weight.transpose() * root.col(a).cwiseProduct(root.col(b)) * inv_n;
      for (Eigen::Index c = 0; c < classes; ++c)
        curvature(a * classes + c, b * classes + c) += diagonal[c];
    }
  }
  return curvature;
}

Eigen::MatrixXd intercept_curvature(const Expansion& e, LinearFamily family) {
  Eigen::MatrixXd curvature = row_curvature(e, family, Eigen::VectorXd::Ones(e.weight.rows()));
  // The multinomial's is singular along (1, ..., 1), a shift of every
  // intercept, which changes no probability; the floor makes it definite
  // without moving the step off the intercepts' sum (their gradient sums to
  // 0, and (1, ..., 1) is an eigenvector), and gives a class of nearly no
  // probability some curvature, as the binomial's weights are floored.
  if (family == LinearFamily::Multinomial) curvature.diagonal().array() += min_weight;
  return curvature;
}

Eigen::VectorXd null_intercepts(const ClassTarget& target, LinearFamily family) {
  // The gaussian problem's target is centred: its intercept is 0.
  if (family == LinearFamily::Gaussian) return Eigen::VectorXd::Zero(1);
  Eigen::VectorXd count = Eigen::VectorXd::Zero(target.classes);
  for (std::size_t i = 0; i < target.labels.size(); ++i)
    count[target.labels[i]] += weight_of(target, static_cast<Eigen::Index>(i));
  for (int c = 0; c < target.classes; ++c) {
    if (!(count[c] > 0)) {
      throw DataError(fmt::format(
          "class {} has no training row (of weight above 0): the {} model needs every class "
          "among the rows it learns from",
          c, to_string(family)));
    }
  }
  if (family == LinearFamily::Binomial) {
    Eigen::VectorXd b(1);
    b[0] = std::log(count[1] / count[0]);
    return b;
  }
  Eigen::VectorXd b = count.array().log();
  return b.array() - b.mean();
}

}  // namespace topkfs::linear_detail
