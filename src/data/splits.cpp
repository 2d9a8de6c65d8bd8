#include "topkfs/data/splits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

void check_fraction(double fraction, const char* field) {
  if (!(fraction > 0.0 && fraction < 1.0)) {
    throw OptionError(fmt::format(
        "{} {} is outside (0, 1); give the fraction of the samples, e.g. 0.2", field, fraction));
  }
}

// Kept and held-out part of a split (train/test or train/validation).
struct TwoParts {
  std::vector<std::int64_t> kept;
  std::vector<std::int64_t> held_out;
};

// held_out_count, refused when a part would be empty.
std::int64_t held_out_size(std::int64_t n, double fraction, const std::string& source,
                           const char* part) {
  const std::int64_t held = held_out_count(n, fraction);
  if (held < 1 || n - held < 1) {
    throw DataError(fmt::format(
        "{}: {} samples are too few for a {} fraction of {}: that leaves {} {} and {} training "
        "samples, and each part needs at least 1",
        source, n, part, fraction, held, part, n - held));
  }
  return held;
}

// Held-out counts per class in proportion to the class sizes: floors first,
// then one more for the largest remainders, ties in random order (the
// "approximate mode" of scikit-learn's StratifiedShuffleSplit).
std::vector<std::int64_t> proportional_counts(const std::vector<std::int64_t>& counts,
                                              std::int64_t total, std::int64_t held, Rng& rng) {
  const std::size_t classes = counts.size();
  std::vector<std::int64_t> out(classes);
  std::vector<double> remainder(classes);
  std::int64_t assigned = 0;
  for (std::size_t c = 0; c < classes; ++c) {
    const double exact =
        static_cast<double>(counts[c]) / static_cast<double>(total) * static_cast<double>(held);
    out[c] = static_cast<std::int64_t>(std::floor(exact));
    remainder[c] = exact - std::floor(exact);
    assigned += out[c];
  }
  std::vector<std::size_t> order(classes);
  std::iota(order.begin(), order.end(), std::size_t{0});
  rng.shuffle(order);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t i = 0; assigned < held && i < classes; ++i) {
    ++out[order[i]];
    ++assigned;
  }
  return out;
}

// Moves single held-out slots between classes so that each class with >= 2
// samples is in both parts and a single-sample class is kept for training,
// where another class can give or take the slot without breaking its own rule.
// The donor (receiver) is the class furthest above (below) its proportional
// share, so the total stays exact and the proportions move least.
void ensure_both_parts(const std::vector<std::int64_t>& counts, std::int64_t total,
                       std::int64_t held_total, std::vector<std::int64_t>& held) {
  const std::size_t classes = counts.size();
  std::vector<std::int64_t> low(classes), high(classes);
  std::vector<double> share(classes);
  for (std::size_t c = 0; c < classes; ++c) {
    low[c] = counts[c] >= 2 ? 1 : 0;
    high[c] = counts[c] >= 2 ? counts[c] - 1 : 0;
    share[c] = static_cast<double>(counts[c]) / static_cast<double>(total) *
               static_cast<double>(held_total);
  }
  auto best = [&](std::size_t skip, bool donor) {
    std::size_t chosen = classes;
    double chosen_gap = 0.0;
    for (std::size_t d = 0; d < classes; ++d) {
      if (d == skip || (donor ? held[d] <= low[d] : held[d] >= high[d])) continue;
      const double gap = donor ? held[d] - share[d] : share[d] - held[d];
      if (chosen == classes || gap > chosen_gap) {
        chosen = d;
        chosen_gap = gap;
      }
    }
    return chosen;
  };
  for (std::size_t c = 0; c < classes; ++c) {
    if (held[c] < low[c]) {
      const std::size_t donor = best(c, true);
      if (donor == classes) continue;
      --held[donor];
      ++held[c];
    } else if (held[c] > high[c]) {
      const std::size_t receiver = best(c, false);
      if (receiver == classes) continue;
      ++held[receiver];
      --held[c];
    }
  }
}

TwoParts split_rows(const Dataset& data, std::vector<std::int64_t> rows, double fraction, Rng& rng,
                    const char* part) {
  const auto n = static_cast<std::int64_t>(rows.size());
  const std::int64_t held = held_out_size(n, fraction, data.source, part);
  TwoParts parts;
  if (data.target_kind != TargetKind::Classes) {
    rng.shuffle(rows);
    parts.held_out.assign(rows.begin(), rows.begin() + held);
    parts.kept.assign(rows.begin() + held, rows.end());
  } else {
    std::vector<std::vector<std::int64_t>> by_class(static_cast<std::size_t>(data.num_classes()));
    for (auto row : rows) {
      by_class[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(row)])].push_back(row);
    }
    std::vector<std::int64_t> counts;
    for (const auto& members : by_class)
      counts.push_back(static_cast<std::int64_t>(members.size()));
    auto held_per_class = proportional_counts(counts, n, held, rng);
    ensure_both_parts(counts, n, held, held_per_class);
    for (std::size_t c = 0; c < by_class.size(); ++c) {
      auto& members = by_class[c];
      rng.shuffle(members);
      const auto cut = members.begin() + held_per_class[c];
      parts.held_out.insert(parts.held_out.end(), members.begin(), cut);
      parts.kept.insert(parts.kept.end(), cut, members.end());
    }
  }
  std::sort(parts.kept.begin(), parts.kept.end());
  std::sort(parts.held_out.begin(), parts.held_out.end());
  return parts;
}

std::vector<std::int64_t> all_rows(std::int64_t n) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  std::iota(rows.begin(), rows.end(), std::int64_t{0});
  return rows;
}

}  // namespace

std::int64_t held_out_count(std::int64_t n, double fraction) {
  return static_cast<std::int64_t>(std::ceil(fraction * static_cast<double>(n)));
}

constexpr EnumName<SplitMode> kSplitModeNames[] = {{SplitMode::Predefined, "predefined"},
                                                   {SplitMode::Random, "random"}};

const char* to_string(SplitMode mode) { return enum_name(mode, kSplitModeNames); }

SplitMode parse_split_mode(const std::string& name) {
  return parse_enum(name, kSplitModeNames, "split");
}

Split random_split(std::int64_t n, double test_fraction, std::uint64_t seed) {
  check_fraction(test_fraction, "test fraction");
  Dataset unlabeled;
  unlabeled.source = "random split";
  Rng rng(seed);
  auto parts = split_rows(unlabeled, all_rows(n), test_fraction, rng, "test");
  return {std::move(parts.kept), std::move(parts.held_out)};
}

Split stratified_split(const Dataset& data, double test_fraction, std::uint64_t seed) {
  check_fraction(test_fraction, "test fraction");
  Rng rng(seed);
  auto parts = split_rows(data, all_rows(data.rows()), test_fraction, rng, "test");
  return {std::move(parts.kept), std::move(parts.held_out)};
}

TrainValTest train_validation_split(const Dataset& data, const std::vector<std::int64_t>& rows,
                                    double validation_fraction, std::uint64_t seed) {
  check_fraction(validation_fraction, "validation fraction");
  std::vector<char> chosen(static_cast<std::size_t>(data.rows()), 0);
  for (auto row : rows) {
    if (row < 0 || row >= data.rows()) {
      throw OptionError(fmt::format("{}: row index {} out of range (the data has {} rows)",
                                    data.source, row, data.rows()));
    }
    if (chosen[static_cast<std::size_t>(row)]) {
      throw OptionError(fmt::format("{}: row index {} given twice for the train/validation split",
                                    data.source, row));
    }
    chosen[static_cast<std::size_t>(row)] = 1;
  }
  Rng rng(seed);
  auto parts = split_rows(data, rows, validation_fraction, rng, "validation");
  TrainValTest out;
  out.train = std::move(parts.kept);
  out.validation = std::move(parts.held_out);
  for (std::int64_t row = 0; row < data.rows(); ++row) {
    if (!chosen[static_cast<std::size_t>(row)]) out.test.push_back(row);
  }
  return out;
}

Split resolve_split(const Dataset& data, SplitMode mode, double test_fraction, std::uint64_t seed) {
  check_fraction(test_fraction, "test fraction");
  if (mode == SplitMode::Predefined && data.predefined_split) return *data.predefined_split;
  return stratified_split(data, test_fraction, seed);
}

}  // namespace topkfs
