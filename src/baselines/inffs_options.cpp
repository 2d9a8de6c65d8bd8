// The inffs options: checks with the command-line names, the solver's names,
// and the table that feeds CLI flags, Python keywords and docs.
#include <fmt/format.h>

#include "topkfs/baselines/inffs.hpp"
#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs {

constexpr EnumName<InfFsSolver> kInfFsSolverNames[] = {
    {InfFsSolver::ConjugateGradient, "cg"},
    {InfFsSolver::ConjugateGradient, "conjugate-gradient"},
    {InfFsSolver::Cholesky, "cholesky"}};

InfFsSolver parse_inffs_solver(const std::string& name) {
  return parse_enum(name, kInfFsSolverNames, option_ref("solver"));
}

const char* to_string(InfFsSolver solver) { return enum_name(solver, kInfFsSolverNames); }

EnumNameList<InfFsSolver> names_of(InfFsSolver) { return kInfFsSolverNames; }

void InfFsOptions::validate() const {
  auto fail = [](const std::string& message) { throw OptionError(message); };
  if (!(alpha >= 0.0 && alpha <= 1.0))
    fail(fmt::format("{} must be in [0, 1], got {}", option_ref("alpha"), alpha));
  if (!(factor > 0.0 && factor < 1.0)) {
    fail(fmt::format("{} must be in (0, 1) (from 1 on the sum over path lengths diverges), got {}",
                     option_ref("factor"), factor));
  }
  if (!(tol > 0.0 && tol < 1.0))
    fail(fmt::format("{} must be in (0, 1), got {}", option_ref("tol"), tol));
}

const OptionTable<InfFsOptions>& inffs_option_table() {
  static const OptionTable<InfFsOptions> table = [] {
    OptionTable<InfFsOptions> t;
    t.add("alpha", &InfFsOptions::alpha,
          "Edge weight a_ij = alpha sigma_ij + (1 - alpha) c_ij: the share of the spread term "
          "(max of the two standard deviations) beside the relevance (or decorrelation) term; "
          "0.5 is the authors' default")
        .add("factor", &InfFsOptions::factor,
             "Damping of long paths, r = factor / spectral radius (ICCV paper: 0.9; the authors' "
             "later code: 0.99); closer to 1 weighs long paths more and needs more solver "
             "iterations")
        .add("supervised", &InfFsOptions::supervised,
             "true: pairwise term from the per-feature relevance to the target (the authors' "
             "supervised variant, extended to several classes and real targets); false: the "
             "ICCV paper's unsupervised term 1 - |Spearman correlation| of the two features")
        .add("solver", &InfFsOptions::solver,
             "cg (conjugate gradients, O(m^2) per iteration, a few dozen iterations) or "
             "cholesky (m^3/3, the exact reference)")
        .add("tol", &InfFsOptions::tol,
             "Relative residual at which conjugate gradients stop (the spectral radius is found "
             "to a residual of sqrt(tol))");
    return t;
  }();
  return table;
}

}  // namespace topkfs
