#include "topkfs/io/read_option_scope.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>
#include <vector>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs {
namespace {

// Where --no-target applies: the option table's and read_dataset's words.
constexpr const char* kNoTargetFormats =
    "every format but LIBSVM (whose lines start with their label)";

std::string excludes_no_target(const std::string& spelled_option,
                               const std::string& spelled_no_target) {
  return fmt::format("{} and {} exclude each other: give one of them", spelled_option,
                     spelled_no_target);
}

// One given option as its rule reads it: the value as the option's kind
// (another kind is the caller's mistake) and the name as the caller spells it.
struct GivenOption {
  const std::string& name;
  const ReaderValue& value;
  std::string spelled;
  ReadPurpose purpose;

  const std::string& text() const {
    if (const auto* text = std::get_if<std::string>(&value.value)) return *text;
    throw std::invalid_argument("reader option " + name + " takes a text");
  }
  std::vector<std::string> texts() const {
    if (const auto* texts = std::get_if<std::vector<std::string>>(&value.value)) return *texts;
    return {text()};
  }
  bool on() const {
    if (const auto* on = std::get_if<bool>(&value.value)) return *on;
    throw std::invalid_argument("reader option " + name + " takes on or off");
  }
};

int count_value(const std::string& text, const std::string& spelled_option) {
  constexpr long long kMost = std::numeric_limits<int>::max();
  long long number = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, number);
  if (error != std::errc() || stop != end || number < 1 || number > kMost) {
    throw OptionError(
        fmt::format("{} takes a whole number from 1 to {}, not {}", spelled_option, kMost, text));
  }
  return static_cast<int>(number);
}

char delimiter_value(const std::string& text, const std::string& spelled_option) {
  if (text == "\\t" || text == "tab") return '\t';
  if (text == "space") return ' ';
  if (text.size() == 1) return text[0];
  throw OptionError(
      fmt::format("{} takes one character (or 'tab', 'space'), not '{}'", spelled_option, text));
}

TaskHint task_value(const std::string& text, const std::string& spelled_option) {
  if (text == "auto") return TaskHint::Auto;
  if (text == "classification") return TaskHint::Classification;
  if (text == "regression") return TaskHint::Regression;
  throw OptionError(fmt::format("{} takes 'auto', 'classification' or 'regression', not '{}'",
                                spelled_option, text));
}

NanPolicy nan_value(const std::string& text, const std::string& spelled_option,
                    ReadPurpose purpose) {
  const NanPolicy policy = parse_nan_policy(text, spelled_option);
  if (policy == NanPolicy::Keep && purpose == ReadPurpose::Select) {
    throw OptionError(
        fmt::format("{} takes impute, error or drop ('keep' is for looking at the data: it leaves "
                    "missing values in, which a selection cannot take)",
                    spelled_option));
  }
  return policy;
}

// One reader option: its name, its kind, and how its value sets ReadOptions.
struct ReaderOptionRule {
  ReaderOptionInfo info;
  void (*apply)(ReadOptions& o, const GivenOption& g);
};

using Kind = ReaderValueKind;

// In the order of the command's flags and of Python's keywords.
const ReaderOptionRule kReaderOptionRules[] = {
    {{"format", Kind::Text},
     [](ReadOptions& o, const GivenOption& g) { o.format = parse_format(g.text()); }},
    {{"target", Kind::Texts}, [](ReadOptions& o, const GivenOption& g) { o.target = g.texts(); }},
    {{"no-target", Kind::Switch},
     [](ReadOptions& o, const GivenOption& g) { o.no_target = g.on(); }},
    {{"header", Kind::Switch},
     [](ReadOptions& o, const GivenOption& g) {
       o.header = g.on() ? HeaderMode::Yes : HeaderMode::No;
     }},
    {{"delimiter", Kind::Text},
     [](ReadOptions& o, const GivenOption& g) {
       o.delimiter = delimiter_value(g.text(), g.spelled);
     }},
    {{"nan", Kind::Text},
     [](ReadOptions& o, const GivenOption& g) {
       o.nan = nan_value(g.text(), g.spelled, g.purpose);
     }},
    {{"categorical", Kind::Texts},
     [](ReadOptions& o, const GivenOption& g) { o.categorical = g.texts(); }},
    {{"numeric", Kind::Texts}, [](ReadOptions& o, const GivenOption& g) { o.numeric = g.texts(); }},
    {{"max-levels", Kind::Count},
     [](ReadOptions& o, const GivenOption& g) { o.max_levels = count_value(g.text(), g.spelled); }},
    {{"na-values", Kind::Texts},
     [](ReadOptions& o, const GivenOption& g) { o.na_values = g.texts(); }},
    {{"task", Kind::Text},
     [](ReadOptions& o, const GivenOption& g) { o.task = task_value(g.text(), g.spelled); }},
    {{"max-auto-classes", Kind::Count},
     [](ReadOptions& o, const GivenOption& g) {
       o.max_auto_classes = count_value(g.text(), g.spelled);
     }},
    {{"x-var", Kind::Text}, [](ReadOptions& o, const GivenOption& g) { o.x_var = g.text(); }},
    {{"y-var", Kind::Text}, [](ReadOptions& o, const GivenOption& g) { o.y_var = g.text(); }},
    {{"x-path", Kind::Text}, [](ReadOptions& o, const GivenOption& g) { o.x_path = g.text(); }},
    {{"y-path", Kind::Text}, [](ReadOptions& o, const GivenOption& g) { o.y_path = g.text(); }},
    {{"labels", Kind::Text},
     [](ReadOptions& o, const GivenOption& g) { o.labels_path = g.text(); }},
    {{"y-file", Kind::Text}, [](ReadOptions& o, const GivenOption& g) { o.y_file = g.text(); }},
    {{"in-memory", Kind::Switch}, [](ReadOptions& o, const GivenOption& g) { o.map = !g.on(); }},
};

}  // namespace

const std::vector<ReaderOptionInfo>& reader_option_infos() {
  static const std::vector<ReaderOptionInfo> infos = [] {
    std::vector<ReaderOptionInfo> out;
    for (const auto& rule : kReaderOptionRules) out.push_back(rule.info);
    return out;
  }();
  return infos;
}

ReadOptions parse_read_options(const std::string& path,
                               const std::vector<std::pair<std::string, ReaderValue>>& given,
                               ReadPurpose purpose) {
  ReadOptions options;
  for (const auto& [name, value] : given) {
    const auto* rule =
        std::find_if(std::begin(kReaderOptionRules), std::end(kReaderOptionRules),
                     [&name = name](const ReaderOptionRule& r) { return name == r.info.name; });
    if (rule == std::end(kReaderOptionRules)) {
      throw std::invalid_argument("unknown reader option " + name);
    }
    rule->apply(options, GivenOption{name, value, option_ref(name), purpose});
  }
  if (const auto misapplied = misapplied_option(path, options)) {
    throw OptionError(misapplied->message(option_ref(misapplied->option), path));
  }
  if (const auto option = option_naming_the_target(options)) {
    throw OptionError(excludes_no_target(option_ref(*option), option_ref("no-target")));
  }
  return options;
}

std::string MisappliedOption::message(const std::string& option_reference,
                                      const std::string& path) const {
  return fmt::format("{} is for {}; {} is read as {}", option_reference, for_what, path,
                     to_string(format));
}

std::optional<MisappliedOption> misapplied_option(const std::string& path,
                                                  const ReadOptions& options) {
  const Format format = options.format == Format::Auto ? detect_format(path) : options.format;
  struct Scope {
    const char* option;
    bool set;
    std::vector<Format> formats;
    const char* for_what;
  };
  const ReadOptions defaults;
  const Scope scopes[] = {
      {"target", !options.target.empty(), {Format::Csv, Format::Tsv}, "CSV and TSV files"},
      {"no-target",
       options.no_target,
       {Format::Csv, Format::Tsv, Format::Idx, Format::Mat, Format::Hdf5, Format::Npy, Format::Npz},
       kNoTargetFormats},
      {options.header == HeaderMode::No ? "no-header" : "header",
       options.header != defaults.header,
       {Format::Csv, Format::Tsv},
       "CSV and TSV files"},
      {"delimiter", options.delimiter.has_value(), {Format::Csv, Format::Tsv}, "CSV and TSV files"},
      {"categorical",
       !options.categorical.empty(),
       {Format::Csv, Format::Tsv},
       "CSV and TSV files"},
      {"numeric", !options.numeric.empty(), {Format::Csv, Format::Tsv}, "CSV and TSV files"},
      {"max-levels",
       options.max_levels != defaults.max_levels,
       {Format::Csv, Format::Tsv},
       "CSV and TSV files"},
      {"na-values", !options.na_values.empty(), {Format::Csv, Format::Tsv}, "CSV and TSV files"},
      {"x-var",
       options.x_var != defaults.x_var,
       {Format::Mat, Format::Npz},
       "MATLAB .mat and NPZ files"},
      {"y-var",
       options.y_var != defaults.y_var,
       {Format::Mat, Format::Npz},
       "MATLAB .mat and NPZ files"},
      {"x-path", !options.x_path.empty(), {Format::Hdf5}, "HDF5 files"},
      {"y-path", !options.y_path.empty(), {Format::Hdf5}, "HDF5 files"},
      {"labels", !options.labels_path.empty(), {Format::Idx}, "IDX images"},
      {"y-file", !options.y_file.empty(), {Format::Npy}, ".npy files"},
      {"in-memory", options.map != defaults.map, {Format::Npy, Format::Npz}, ".npy and NPZ files"},
  };
  for (const auto& scope : scopes) {
    if (scope.set &&
        std::find(scope.formats.begin(), scope.formats.end(), format) == scope.formats.end()) {
      return MisappliedOption{scope.option, scope.for_what, format};
    }
  }
  return std::nullopt;
}

std::optional<std::string> option_naming_the_target(const ReadOptions& options) {
  if (!options.no_target) return std::nullopt;
  const ReadOptions defaults;
  if (!options.target.empty()) return "target";
  if (options.y_var != defaults.y_var) return "y-var";
  if (!options.y_path.empty()) return "y-path";
  if (!options.labels_path.empty()) return "labels";
  if (!options.y_file.empty()) return "y-file";
  return std::nullopt;
}

void check_target_options(const ReadOptions& options, Format format) {
  if (const auto option = option_naming_the_target(options)) {
    throw OptionError(excludes_no_target(option_ref(*option), option_ref("no-target")));
  }
  if (options.no_target && format == Format::Libsvm) {
    throw OptionError(fmt::format("{} is for {}", option_ref("no-target"), kNoTargetFormats));
  }
  // One array as features and target would make the target a feature.
  const auto same_array = [](const std::string& x, const std::string& y) {
    const auto bare = [](const std::string& name) {
      return name.empty() || name.front() != '/' ? "/" + name : name;
    };
    return !x.empty() && !y.empty() && bare(x) == bare(y);
  };
  if (format == Format::Hdf5 && same_array(options.x_path, options.y_path)) {
    throw OptionError(
        fmt::format("{} and {} both name {}: the target must be another dataset than the features",
                    option_ref("x-path"), option_ref("y-path"), options.x_path));
  }
  if ((format == Format::Mat || format == Format::Npz) && options.x_var == options.y_var) {
    throw OptionError(fmt::format(
        "{} and {} both name '{}': the target must be another variable than the features",
        option_ref("x-var"), option_ref("y-var"), options.x_var));
  }
}

}  // namespace topkfs
