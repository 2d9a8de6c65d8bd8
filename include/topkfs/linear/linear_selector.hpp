#pragma once
// The linear lead models as selection methods: lasso, ridge, elastic-net
// (lambda3 = 0) and lasso-top, ridge-top, elastic-net-top (Wu & Cheng eq. 4
// and 5). The objective and its scaling are in linear_model.hpp; the choice of
// defaults is explained in docs/linear.md.
#include <memory>
#include <string>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/linear/linear_model.hpp"
#include "topkfs/select/option_table.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

enum class LinearModel { Lasso, Ridge, ElasticNet };

// The choices of LinearOptions (their names: the option table, and
// names_of for enum_name()).
enum class PathStop { K, End };  // the first point with >= k non-zero weights, or the last
enum class LinearFamilyChoice { Auto, Gaussian, Binomial, Multinomial };
enum class LinearScaling { Standard, None };  // "auto" is another name of standard
enum class GroupFit { Columns, GroupLasso };
EnumNameList<PathStop> names_of(PathStop);
EnumNameList<LinearFamilyChoice> names_of(LinearFamilyChoice);
EnumNameList<LinearScaling> names_of(LinearScaling);
EnumNameList<GroupFit> names_of(GroupFit);

struct LinearOptions {
  double lambda1 = 0.03;  // lambda1/2 ||w||^2 (elastic net, ridge); lasso has 0
  double lambda2 = -1.0;  // lambda2 ||w||_1; negative: walk the path (see help)
  double lambda3 = 1.0;   // weight of the top-k sub-model's loss (-top models)
  double tol = 1e-8;      // relative objective change over a sweep
  int max_iter = 10000;   // coordinate sweeps per fit (per path point)
  int path_points = 100;  // length of the lambda2 path
  double eps = 1e-3;      // the path ends at eps * lambda2_max
  PathStop path_stop = PathStop::K;
  LinearSolver solver = LinearSolver::Auto;
  LinearFamilyChoice family = LinearFamilyChoice::Auto;
  LinearScaling scaling = LinearScaling::Standard;
  // Columns failing the marginal screen at this level rank last; 0: off.
  double screen_level = 0.05;
  int threads = 0;  // 0 = every core that other work leaves free when the fit starts
  // Grouped columns (Dataset::column_group): columns (fit single columns,
  // score a group by the norm of its weights) | group-lasso (block updates).
  GroupFit group_fit = GroupFit::Columns;

  // Throws OptionError naming the offending field.
  void validate() const;
};

const OptionTable<LinearOptions>& linear_option_table();

// The registry name of a model: "lasso", "ridge-top", ...
std::string linear_method_name(LinearModel model, bool top_k);

std::unique_ptr<Selector> make_linear_selector(LinearModel model, bool top_k);

// By registry name ("elastic-net-top", ...), for programs that use the linear
// family without the whole registry; throws OptionError for other names.
std::unique_ptr<Selector> make_linear_selector(const std::string& method);

}  // namespace topkfs
