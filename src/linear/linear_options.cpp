#include <fmt/format.h>

#include <cmath>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/thread_count.hpp"
#include "topkfs/linear/glm_model.hpp"
#include "topkfs/linear/linear_model.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace topkfs {

constexpr EnumName<PathStop> kPathStopNames[] = {{PathStop::K, "k"}, {PathStop::End, "end"}};
constexpr EnumName<LinearFamilyChoice> kFamilyNames[] = {
    {LinearFamilyChoice::Auto, "auto"},
    {LinearFamilyChoice::Gaussian, "gaussian"},
    {LinearFamilyChoice::Binomial, "binomial"},
    {LinearFamilyChoice::Multinomial, "multinomial"}};
constexpr EnumName<LinearScaling> kLinearScalingNames[] = {{LinearScaling::Standard, "standard"},
                                                           {LinearScaling::Standard, "auto"},
                                                           {LinearScaling::None, "none"}};
constexpr EnumName<GroupFit> kGroupFitNames[] = {{GroupFit::Columns, "columns"},
                                                 {GroupFit::GroupLasso, "group-lasso"}};

EnumNameList<PathStop> names_of(PathStop) { return kPathStopNames; }
EnumNameList<LinearFamilyChoice> names_of(LinearFamilyChoice) { return kFamilyNames; }
EnumNameList<LinearScaling> names_of(LinearScaling) { return kLinearScalingNames; }
EnumNameList<GroupFit> names_of(GroupFit) { return kGroupFitNames; }

void LinearOptions::validate() const {
  auto fail = [](const std::string& message) { throw OptionError(message); };
  if (!(lambda1 >= 0))
    fail(fmt::format("{} must not be negative, got {}", option_ref("lambda1"), lambda1));
  if (std::isnan(lambda2))
    fail(fmt::format("{} is NaN; give a number >= 0, or -1 for the path", option_ref("lambda2")));
  if (!(lambda3 >= 0))
    fail(fmt::format("{} must not be negative, got {}", option_ref("lambda3"), lambda3));
  if (!(tol > 0 && tol < 1))
    fail(fmt::format("{} must be in (0, 1), got {}", option_ref("tol"), tol));
  if (max_iter < 1)
    fail(fmt::format("{} must be at least 1, got {}", option_ref("max-iter"), max_iter));
  if (path_points < 1)
    fail(fmt::format("{} must be at least 1, got {}", option_ref("path-points"), path_points));
  if (!(eps > 0 && eps < 1))
    fail(fmt::format("{} must be in (0, 1), got {}", option_ref("eps"), eps));
  if (!(screen_level >= 0 && screen_level <= 1)) {
    fail(fmt::format("{} must be in [0, 1] (0: no screen), got {}", option_ref("screen-level"),
                     screen_level));
  }
  check_thread_count(threads);
}

const OptionTable<LinearOptions>& linear_option_table() {
  static const OptionTable<LinearOptions> table = [] {
    OptionTable<LinearOptions> t;
    t.add("lambda1", &LinearOptions::lambda1,
          "Ridge weight: lambda1/2 ||w||^2 beside the mean squared error/2 (class families: the "
          "negative log-likelihood / n) on standardised "
          "columns (scikit-learn: alpha = lambda1 + lambda2, l1_ratio = lambda2 / alpha)")
        .add("lambda2", &LinearOptions::lambda2,
             fmt::format("L1 weight lambda2 ||w||_1, in the unit of the target; negative: a path "
                         "of {} values from the smallest one that zeroes every weight down to {} "
                         "times it, with warm starts, stopped where {} says",
                         option_ref("path-points"), option_ref("eps"), option_ref("path-stop")))
        .add("lambda3", &LinearOptions::lambda3,
             "Weight of the top-k sub-model's loss (the top-k term)")
        .add("tol", &LinearOptions::tol,
             "Stop when the top-k set is stable and the objective changed by less than this "
             "fraction over a sweep (and no zero weight violates its optimality condition)")
        .add("max-iter", &LinearOptions::max_iter,
             "Coordinate sweeps allowed per fit (per path point); running out is a warning")
        .add("path-points", &LinearOptions::path_points, "Length of the lambda2 path")
        .add("eps", &LinearOptions::eps, "The lambda2 path ends at eps x its first value")
        .add("path-stop", &LinearOptions::path_stop,
             "Where the lambda2 path stops: k (the first point with at least k non-zero weights) "
             "or end (its last point)")
        .add("solver", &LinearOptions::solver,
             "auto (covariance updates when rows >= 2 x columns, as glmnet), covariance or naive")
        .add("family", &LinearOptions::family,
             "auto (real target: gaussian; two classes: binomial; more: multinomial), gaussian "
             "(least squares; two classes as 0/1), binomial (logistic) or multinomial (softmax, "
             "grouped penalty: a feature is in or out for every class)")
        .add("scaling", &LinearOptions::scaling,
             "standard (columns to mean 0, sd 1 over the training rows, as glmnet; auto is the "
             "same) or none (centred only: the penalties act on the columns' own units)")
        .add("screen-level", &LinearOptions::screen_level,
             "Columns whose marginal association with the target (score test of the column "
             "alone against the intercept-only model) has a p-value at or above this level rank "
             "after every column below it; the fits are unchanged (0: rank by weight alone)")
        .add("group-fit", &LinearOptions::group_fit,
             fmt::format(
                 "How grouped columns (a categorical column's one-hot columns, a numeric column "
                 "and its missing indicator, {}) are fitted: columns (single columns, k times the "
                 "groups' mean width of them; a group scores the norm of its weights) or "
                 "group-lasso (lambda2 sqrt(p_g) ||w_g|| per group and a top-k set of groups, "
                 "block coordinate descent: a group enters and leaves the model whole)",
                 option_ref("groups")))
        .add("threads", &LinearOptions::threads,
             "Threads for standardising and the BLAS products (0 = every core free when the fit "
             "starts)");
    return t;
  }();
  return table;
}

}  // namespace topkfs
