#pragma once
// Helpers of the linear models' tests: datasets from plain arrays, and the
// optimality (KKT) conditions computed from scratch, independently of the
// solver's bookkeeping.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "topkfs/core/random.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/linear/glm_model.hpp"
#include "topkfs/linear/linear_model.hpp"

namespace topkfs::test {

inline Dataset regression_dataset(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  Dataset data;
  data.features = x.cast<float>();
  for (Eigen::Index j = 0; j < x.cols(); ++j) data.feature_names.push_back(fmt::format("x{}", j));
  data.target_kind = TargetKind::Real;
  data.targets = y;
  data.target_names = {"y"};
  data.source = "test data";
  data.format = "memory";
  return data;
}

// Labels 0..classes-1 named "c0", "c1", ...
inline Dataset class_dataset(const Eigen::MatrixXd& x, const std::vector<std::int32_t>& labels,
                             int classes) {
  Dataset data = regression_dataset(x, Eigen::VectorXd::Zero(x.rows()));
  data.target_kind = TargetKind::Classes;
  data.targets.resize(0, 0);
  data.target_names.clear();
  data.labels = labels;
  for (int c = 0; c < classes; ++c) data.class_names.push_back(fmt::format("c{}", c));
  return data;
}

// A golden file of tests/linear, written by `script` there (scikit-learn's
// and glmnet's answers).
inline nlohmann::json load_golden(const std::string& file, const std::string& script) {
  const std::string path = std::string(TOPKFS_FIXTURES_DIR) + "/../linear/" + file;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path << " (regenerate it with /usr/bin/python3 "
                         << "tests/linear/" << script << ")";
  return nlohmann::json::parse(in);
}

inline Eigen::MatrixXd matrix_of(const nlohmann::json& rows) {
  Eigen::MatrixXd x(static_cast<Eigen::Index>(rows.size()),
                    static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    for (Eigen::Index j = 0; j < x.cols(); ++j) x(i, j) = rows[i][j].get<double>();
  }
  return x;
}

inline Eigen::VectorXd vector_of(const nlohmann::json& values) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = values[i].get<double>();
  return v;
}

inline std::vector<std::int64_t> all_rows(std::int64_t n) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), 0);
  return rows;
}

// Tolerance and sweeps that leave only rounding between a fit and the
// reference it is compared with.
inline SolverControl exactness_control() {
  SolverControl control;
  control.tol = 1e-15;
  control.max_sweeps = 1000000;
  return control;
}

inline LinearProblem make_problem(const Dataset& data, int threads = 1) {
  Eigen::VectorXd y = data.targets.col(0);
  return LinearProblem(data.features, all_rows(data.rows()), y, threads);
}

// The largest violation of the optimality conditions of F with the top-k set
// S = top_k_columns(w) held fixed (the fixed point coordinate descent reaches):
//   w_j != 0: grad_j - lambda1 w_j = lambda2 sign(w_j)
//   w_j == 0: |grad_j| <= lambda2
// where grad_j = x_j'r/n (+ lambda3 x_j'r_S/n for j in S, and for every zero
// weight while S has fewer than k non-zero members).
inline double kkt_violation(const LinearProblem& problem, const LinearPenalty& penalty,
                            const Eigen::VectorXd& w) {
  const double inv_n = 1.0 / static_cast<double>(problem.rows());
  const Eigen::VectorXd r = problem.y() - problem.x() * w;
  Eigen::VectorXd g = problem.x().transpose() * r * inv_n;
  Eigen::VectorXd g_top = Eigen::VectorXd::Zero(w.size());
  std::vector<char> in_top(static_cast<std::size_t>(w.size()), 0);
  bool open_slots = false;
  if (penalty.lambda3 > 0) {
    Eigen::VectorXd masked = Eigen::VectorXd::Zero(w.size());
    int nonzero_members = 0;
    for (auto j : top_k_columns(w, penalty.k)) {
      if (w[j] == 0.0) continue;
      masked[j] = w[j];
      in_top[static_cast<std::size_t>(j)] = 1;
      ++nonzero_members;
    }
    open_slots = nonzero_members < penalty.k;
    g_top = problem.x().transpose() * (problem.y() - problem.x() * masked) * inv_n;
  }
  double worst = 0.0;
  for (Eigen::Index j = 0; j < w.size(); ++j) {
    if (problem.column_norm()[j] == 0.0) continue;
    const bool top = in_top[static_cast<std::size_t>(j)] || (open_slots && w[j] == 0.0);
    const double grad = g[j] + (top ? penalty.lambda3 * g_top[j] : 0.0);
    double violation;
    if (w[j] != 0.0) {
      violation = std::abs(grad - penalty.lambda1 * w[j] - penalty.lambda2 * (w[j] > 0 ? 1 : -1));
    } else {
      violation = std::max(0.0, std::abs(grad) - penalty.lambda2);
    }
    worst = std::max(worst, violation);
  }
  return worst;
}

// Y - P of the class models at eta, from the definitions (sigmoid or
// softmax), apart from the solver's code.
inline Eigen::MatrixXd class_residual(const Eigen::MatrixXd& eta, const ClassTarget& target) {
  Eigen::MatrixXd residual(eta.rows(), eta.cols());
  for (Eigen::Index i = 0; i < eta.rows(); ++i) {
    const int label = target.labels[static_cast<std::size_t>(i)];
    if (eta.cols() == 1) {
      residual(i, 0) = (label == 1 ? 1.0 : 0.0) - 1.0 / (1.0 + std::exp(-eta(i, 0)));
      continue;
    }
    const Eigen::ArrayXd e = (eta.row(i).array() - eta.row(i).maxCoeff()).exp().transpose();
    for (Eigen::Index c = 0; c < eta.cols(); ++c) {
      residual(i, c) = (c == label ? 1.0 : 0.0) - e[c] / e.sum();
    }
  }
  return residual;
}

// One label per row of `eta` drawn from the model's probabilities: the
// logistic of the one column (two classes) or the softmax of the rows; one
// uniform draw of `rng` per row.
inline std::vector<std::int32_t> draw_labels(const Eigen::MatrixXd& eta, int classes, Rng& rng) {
  std::vector<std::int32_t> labels;
  for (Eigen::Index i = 0; i < eta.rows(); ++i) {
    Eigen::ArrayXd p(classes);
    if (classes == 2) {
      p[1] = 1.0 / (1.0 + std::exp(-eta(i, 0)));
      p[0] = 1.0 - p[1];
    } else {
      p = (eta.row(i).array() - eta.row(i).maxCoeff()).exp().transpose();
      p /= p.sum();
    }
    double u = rng.uniform();
    int label = 0;
    while (label < classes - 1 && u > p[label]) u -= p[label++];
    labels.push_back(label);
  }
  return labels;
}

// The largest violation of the optimality conditions of the class models'
// objective (glm_model.hpp) with the top-k set S = the top k rows by norm
// held fixed:
//   intercepts:  sum_i (residual + lambda3 residual_S)_ic = 0
//   B_j != 0:    g_j - lambda1 B_j = lambda2 B_j / ||B_j||
//   B_j == 0:    ||g_j|| <= lambda2
// with g_j = x_j' residual / n (+ lambda3 x_j' residual_S / n for j in S and
// for every zero row while S has fewer than k non-zero members).
inline double class_kkt_violation(const LinearProblem& problem, const ClassTarget& target,
                                  const LinearPenalty& penalty, const Eigen::MatrixXd& coef,
                                  const Eigen::VectorXd& intercept) {
  const double inv_n = 1.0 / static_cast<double>(problem.rows());
  const Eigen::MatrixXd offset = intercept.transpose().replicate(problem.rows(), 1);
  const Eigen::MatrixXd residual = class_residual(offset + problem.x() * coef, target);
  Eigen::MatrixXd g = problem.x().transpose() * residual * inv_n;
  Eigen::MatrixXd g_top = Eigen::MatrixXd::Zero(g.rows(), g.cols());
  Eigen::RowVectorXd intercept_gradient = residual.colwise().sum() * inv_n;
  const Eigen::VectorXd norms = coef.rowwise().norm();
  std::vector<char> in_top(static_cast<std::size_t>(coef.rows()), 0);
  bool open_slots = false;
  if (penalty.lambda3 > 0) {
    Eigen::MatrixXd masked = Eigen::MatrixXd::Zero(coef.rows(), coef.cols());
    int members = 0;
    for (auto j : top_k_columns(norms, penalty.k)) {
      if (norms[j] == 0.0) continue;
      masked.row(j) = coef.row(j);
      in_top[static_cast<std::size_t>(j)] = 1;
      ++members;
    }
    open_slots = members < penalty.k;
    const Eigen::MatrixXd sub = class_residual(offset + problem.x() * masked, target);
    g_top = problem.x().transpose() * sub * inv_n;
    intercept_gradient += penalty.lambda3 * sub.colwise().sum() * inv_n;
  }
  double worst = intercept_gradient.cwiseAbs().maxCoeff();
  for (Eigen::Index j = 0; j < coef.rows(); ++j) {
    if (problem.column_norm()[j] == 0.0) continue;
    const bool top = in_top[static_cast<std::size_t>(j)] || (open_slots && norms[j] == 0.0);
    const Eigen::RowVectorXd grad = g.row(j) + (top ? penalty.lambda3 : 0.0) * g_top.row(j);
    const double violation =
        norms[j] > 0
            ? (grad - penalty.lambda1 * coef.row(j) - penalty.lambda2 / norms[j] * coef.row(j))
                  .norm()
            : std::max(0.0, grad.norm() - penalty.lambda2);
    worst = std::max(worst, violation);
  }
  return worst;
}

}  // namespace topkfs::test
