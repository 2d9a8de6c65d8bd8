// Probabilities, weights and loss of the logistic and multinomial models,
// computed so that large |eta| neither overflows nor loses the small
// probabilities (log-sum-exp with the row's maximum taken out).
#include "glm_likelihood.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topkfs/core/error.hpp"

namespace topkfs::linear_detail {
namespace {

// Below this the weight of a row is raised to it: a nearly certain row would
// otherwise give a coordinate no curvature. The floor changes the steps, not
// the solution (a point is a fixed point of the steps exactly when it is
// optimal, whatever positive curvature the steps use); glmnet floors too.
constexpr double min_weight = 1e-5;

// The curvature bounds are floored likewise, relative to the column's scale.
constexpr double min_curvature = 1e-5;

void expand_binomial(const Eigen::MatrixXd& eta, const ClassTarget& target, Expansion& out) {
  const Eigen::Index n = eta.rows();
  out.residual.resize(n, 1);
  out.weight.resize(n, 1);
  double loss = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double e = eta(i, 0);
    const double y = target.labels[static_cast<std::size_t>(i)] == 1 ? 1.0 : 0.0;
    // log(1 + exp(e)) - y e, and p = 1 / (1 + exp(-e)), without overflow.
    const double t = std::exp(-std::abs(e));
    loss += std::max(e, 0.0) + std::log1p(t) - y * e;
    const double p = e >= 0 ? 1.0 / (1.0 + t) : t / (1.0 + t);
    out.residual(i, 0) = y - p;
    out.weight(i, 0) = std::max(p * (1.0 - p), min_weight);
  }
  out.loss = loss / static_cast<double>(n);
}

void expand_multinomial(const Eigen::MatrixXd& eta, const ClassTarget& target, Expansion& out) {
  const Eigen::Index n = eta.rows();
  const Eigen::Index classes = eta.cols();
  out.residual.resize(n, classes);
  out.weight.resize(n, classes);
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
    loss += top + std::log(sum) - eta(i, label);
    for (Eigen::Index c = 0; c < classes; ++c) {
      const double prob = p[c] / sum;
      out.residual(i, c) = (c == label ? 1.0 : 0.0) - prob;
      out.weight(i, c) = prob;
    }
  }
  out.loss = loss / static_cast<double>(n);
}

}  // namespace

void expand(const Eigen::MatrixXd& eta, const ClassTarget& target, LinearFamily family,
            Expansion& out) {
  TOPKFS_ASSERT(static_cast<std::size_t>(eta.rows()) == target.labels.size());
  if (family == LinearFamily::Binomial) {
    expand_binomial(eta, target, out);
  } else {
    expand_multinomial(eta, target, out);
  }
}

void shift(Expansion& e, LinearFamily family, const Eigen::Ref<const Eigen::VectorXd>& column,
           const Eigen::VectorXd& delta) {
  if (family == LinearFamily::Binomial) {
    e.residual.col(0).noalias() -= delta[0] * e.weight.col(0).cwiseProduct(column);
    return;
  }
  // d_i = column_i delta: residual_ic -= column_i p_ic (delta_c - p_i . delta).
  const Eigen::VectorXd mean = e.weight * delta;
  for (Eigen::Index c = 0; c < delta.size(); ++c) {
    e.residual.col(c).array() -=
        column.array() * e.weight.col(c).array() * (delta[c] - mean.array());
  }
}

double row_curvature(const Expansion& e, LinearFamily family, const Eigen::VectorXd& squares) {
  const double floor = min_curvature * squares.mean();
  const auto n = static_cast<double>(e.weight.rows());
  if (family == LinearFamily::Binomial) {
    return std::max(e.weight.col(0).dot(squares) / n, floor);
  }
  // Per row the Hessian diag(p) - p p' is at most diag(p) and, being
  // diagonally dominant, at most diag(2 p (1 - p)); either bound's largest
  // diagonal entry bounds the eigenvalues. The smaller one wins.
  const Eigen::VectorXd plain = e.weight.transpose() * squares;
  const Eigen::VectorXd dominant =
      2.0 * (e.weight.array() * (1.0 - e.weight.array())).matrix().transpose() * squares;
  return std::max(std::min(plain.maxCoeff(), dominant.maxCoeff()) / n, floor);
}

double intercept_curvature(const Expansion& e, LinearFamily family, Eigen::Index c) {
  if (family == LinearFamily::Binomial) return e.weight.col(0).sum();
  return std::max((e.weight.col(c).array() * (1.0 - e.weight.col(c).array())).sum(),
                  min_weight * static_cast<double>(e.weight.rows()));
}

Eigen::VectorXd null_intercepts(const ClassTarget& target, LinearFamily family) {
  Eigen::VectorXd count = Eigen::VectorXd::Zero(target.classes);
  for (auto label : target.labels) count[label] += 1.0;
  for (int c = 0; c < target.classes; ++c) {
    if (count[c] == 0) {
      throw DataError(fmt::format(
          "class {} has no training row: the {} model needs every class among the rows it learns "
          "from",
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
