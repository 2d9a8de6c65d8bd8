#include "linear_target.hpp"

#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs::linear_detail {
namespace {

LinearFamily resolve_family(const Dataset& data, LinearFamilyChoice family,
                            const std::string& method) {
  if (data.target_kind == TargetKind::None) {
    throw DataError(fmt::format("{}: supervised selection needs a target, and this data has none",
                                data.source));
  }
  const bool classes = data.target_kind == TargetKind::Classes;
  if (family == LinearFamilyChoice::Auto) {
    if (!classes) return LinearFamily::Gaussian;
    return data.num_classes() == 2 ? LinearFamily::Binomial : LinearFamily::Multinomial;
  }
  const LinearFamily chosen = parse_linear_family(enum_name(family));
  if (chosen != LinearFamily::Gaussian && !classes) {
    throw DataError(fmt::format(
        "{}: {} needs a class target, and this one is real; use {}, or {} if the values are labels",
        data.source, option_ref("family", enum_name(family)), option_ref("family", "gaussian"),
        option_ref("task", "classification")));
  }
  if (chosen == LinearFamily::Gaussian && classes && data.num_classes() != 2) {
    throw DataError(fmt::format(
        "{}: the target has {} classes; {} {} is a regression and takes a real target or two "
        "classes: use {} (or the default) for {} classes, dnn-top (softmax cross-entropy), or {} "
        "if the labels are numbers on a scale",
        data.source, data.num_classes(), method, option_ref("family", "gaussian"),
        option_ref("family", "multinomial"), data.num_classes(), option_ref("task", "regression")));
  }
  if (chosen == LinearFamily::Binomial && data.num_classes() != 2) {
    throw DataError(fmt::format("{}: {} takes two classes, and the target has {}: use {}",
                                data.source, option_ref("family", "binomial"), data.num_classes(),
                                option_ref("family", "multinomial")));
  }
  return chosen;
}

}  // namespace

LinearTarget linear_target(const Dataset& data, const std::vector<std::int64_t>& rows,
                           LinearFamilyChoice family, const std::string& method) {
  LinearTarget target;
  target.family = resolve_family(data, family, method);
  const auto n = static_cast<Eigen::Index>(rows.size());
  target.y = Eigen::VectorXd::Zero(n);
  if (data.target_kind == TargetKind::Real) {
    if (data.num_outputs() != 1) {
      throw DataError(fmt::format("{}: {} target columns ({}); {} fits one: choose it with {}",
                                  data.source, data.num_outputs(),
                                  fmt::join(data.target_names, ", "), method,
                                  option_ref("target", "NAME")));
    }
    for (Eigen::Index i = 0; i < n; ++i)
      target.y[i] = data.targets(rows[static_cast<std::size_t>(i)], 0);
    target.task = "regression";
    return target;
  }
  if (target.family == LinearFamily::Gaussian) {
    for (Eigen::Index i = 0; i < n; ++i) {
      target.y[i] = data.labels[static_cast<std::size_t>(rows[static_cast<std::size_t>(i)])];
    }
    target.task = "binary-as-regression";
    target.note = fmt::format(
        "two classes, {}: {} is fitted as a regression on the labels '{}' = 0 and '{}' = 1 (a "
        "linear probability model)",
        option_ref("family", "gaussian"), method, data.class_names[0], data.class_names[1]);
    return target;
  }
  target.classes.classes = data.num_classes();
  target.classes.labels.reserve(rows.size());
  for (auto row : rows) target.classes.labels.push_back(data.labels[static_cast<std::size_t>(row)]);
  target.task = to_string(target.family);
  target.note =
      target.family == LinearFamily::Binomial
          ? fmt::format(
                "binomial family: logistic regression for the log-odds of '{}' against '{}'",
                data.class_names[1], data.class_names[0])
          : fmt::format(
                "multinomial family: {} classes, grouped penalty (a feature is in or out "
                "for every class; it ranks by the norm of its coefficient row)",
                data.num_classes());
  return target;
}

}  // namespace topkfs::linear_detail
