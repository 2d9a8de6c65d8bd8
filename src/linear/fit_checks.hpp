#pragma once
// The checks every linear fit makes of its penalty and solver control, shared
// by the least-squares and the class solvers.
#include "topkfs/linear/linear_model.hpp"

namespace topkfs::linear_detail {

// Throws OptionError for negative lambdas, a k out of range when lambda3 > 0,
// a tolerance that is not positive or fewer than one sweep.
void check_fit_request(const LinearProblem& problem, const LinearPenalty& penalty,
                       const SolverControl& control);

}  // namespace topkfs::linear_detail
