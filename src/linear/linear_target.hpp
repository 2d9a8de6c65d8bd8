#pragma once
// What a linear model learns from: the family (--family, or chosen from the
// target) and the target in the form that family's solver takes.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/linear/glm_model.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace topkfs::linear_detail {

struct LinearTarget {
  LinearFamily family = LinearFamily::Gaussian;
  Eigen::VectorXd y;    // gaussian: the target of each row (zeros for the class families)
  ClassTarget classes;  // binomial, multinomial: the labels of each row
  std::string task;     // regression | binary-as-regression | binomial | multinomial
  std::string note;     // said in the result when not empty
};

// `family`: auto (real values: gaussian; two classes: binomial; more:
// multinomial) or one of the families. Throws DataError, saying what to do,
// when the family cannot fit the target.
LinearTarget linear_target(const Dataset& data, const std::vector<std::int64_t>& rows,
                           LinearFamilyChoice family, const std::string& method);

}  // namespace topkfs::linear_detail
