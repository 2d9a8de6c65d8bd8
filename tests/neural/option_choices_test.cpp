// Choice options are typed in the option tables (select/option_table.hpp):
// every registered method's choices read back to the name they were given
// as, a bad value lists them, and the JSON keeps the names it always had.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/methods/registry.hpp"
#include "topkfs/neural/dnn_top.hpp"
#include "topkfs/trees/forest.hpp"

namespace topkfs {
namespace {

// Every (method, option) of the registry that declares choices.
struct ChoiceOption {
  std::string method;
  OptionInfo info;
};

std::vector<ChoiceOption> choice_options() {
  std::vector<ChoiceOption> out;
  for (const auto& method : registered_methods()) {
    for (const auto& info : method.make()->describe_options()) {
      if (!info.choices.empty()) out.push_back({method.name, info});
    }
  }
  return out;
}

TEST(OptionChoices, EveryMethodDeclaresItsChoiceOptions) {
  std::map<std::string, std::vector<std::string>> declared;
  for (const auto& option : choice_options()) declared[option.method].push_back(option.info.name);
  const std::vector<std::string> dnn_top = {"scaling",      "body",   "every-k",
                                            "w-constraint", "w-step", "stop-on",
                                            "rank-by",      "wide",   "screen"};
  EXPECT_EQ(declared["dnn-top"], dnn_top);
  EXPECT_EQ(declared["dfs"], dnn_top);
  const std::vector<std::string> linear = {"path-stop", "solver", "family", "scaling", "group-fit"};
  EXPECT_EQ(declared["lasso-top"], linear);
  EXPECT_EQ(declared["random-forest"],
            (std::vector<std::string>{"max-features", "criterion", "kind"}));
  EXPECT_EQ(declared["inffs"], std::vector<std::string>{"solver"});
  EXPECT_EQ(declared["stg"], std::vector<std::string>{"scaling"});
}

// parse(name(v)) == v: each choice set by its name is reported (JSON, and the
// help's default text) by that name, and setting the reported text again
// changes nothing.
TEST(OptionChoices, EveryChoiceReadsBackToItsName) {
  const auto options = choice_options();
  ASSERT_FALSE(options.empty());
  for (const auto& [method, info] : options) {
    for (const auto& choice : info.choices) {
      auto selector = make_selector(method);
      selector->set_option(info.name, choice);
      const nlohmann::json value = selector->options_json().at(info.name);
      ASSERT_TRUE(value.is_string()) << method << " --" << info.name;
      EXPECT_EQ(value.get<std::string>(), choice) << method << " --" << info.name;
      auto again = make_selector(method);
      again->set_option(info.name, value.get<std::string>());
      EXPECT_EQ(again->options_json(), selector->options_json()) << method << " " << choice;
    }
    // The help's default is one of the names, or a number the option also takes.
    auto fresh = make_selector(method);
    fresh->set_option(info.name, info.default_text);
    EXPECT_EQ(fresh->options_json().at(info.name).get<std::string>(), info.default_text)
        << method << " --" << info.name;
  }
}

TEST(OptionChoices, ABadValueNamesTheOptionAndListsEveryChoice) {
  for (const auto& [method, info] : choice_options()) {
    auto selector = make_selector(method);
    // A structured binding cannot be captured by a lambda before C++20.
    const std::string name = info.name;
    const std::string message =
        test::error_of<OptionError>([&] { selector->set_option(name, "no-such-choice"); });
    EXPECT_TRUE(test::contains(message, "--" + info.name)) << message;
    EXPECT_TRUE(test::contains(message, "'no-such-choice'")) << message;
    for (const auto& choice : info.choices) {
      EXPECT_TRUE(test::contains(message, choice)) << method << ": " << message;
    }
  }
}

// The result JSON and saved models carry these values; typed options must
// write exactly the text the string options wrote.
TEST(OptionChoices, TheJsonKeepsTheNamesAndNumbersItHad) {
  const auto json_of = [](const std::string& method,
                          const std::vector<std::pair<std::string, std::string>>& given) {
    auto selector = make_selector(method);
    for (const auto& [name, text] : given) selector->set_option(name, text);
    return selector->options_json();
  };
  const nlohmann::json dnn_top = json_of("dnn-top", {});
  for (const auto& [name, text] : std::map<std::string, std::string>{{"scaling", "auto"},
                                                                     {"body", "mlp"},
                                                                     {"every-k", "auto"},
                                                                     {"w-constraint", "none"},
                                                                     {"w-step", "adam"},
                                                                     {"stop-on", "sum"},
                                                                     {"rank-by", "w"},
                                                                     {"wide", "auto"},
                                                                     {"screen", "auto"}}) {
    EXPECT_EQ(dnn_top.at(name), text) << name;
  }
  const nlohmann::json dfs = json_of("dfs", {});
  EXPECT_EQ(dfs.at("wide"), "off");
  EXPECT_EQ(dfs.at("screen"), "off");
  EXPECT_EQ(json_of("dnn-top", {{"screen", "30"}}).at("screen"), "30");
  EXPECT_EQ(json_of("dnn-top", {{"w-constraint", "NonNeg"}}).at("w-constraint"), "nonneg");

  const nlohmann::json lasso_top = json_of("lasso-top", {});
  EXPECT_EQ(lasso_top.at("path-stop"), "end");
  EXPECT_EQ(json_of("lasso", {}).at("path-stop"), "k");
  EXPECT_EQ(lasso_top.at("solver"), "auto");
  EXPECT_EQ(lasso_top.at("family"), "auto");
  EXPECT_EQ(lasso_top.at("scaling"), "standard");
  EXPECT_EQ(lasso_top.at("group-fit"), "columns");
  // "auto" stays another name of standard for the linear models.
  EXPECT_EQ(json_of("lasso", {{"scaling", "auto"}}).at("scaling"), "standard");

  const nlohmann::json forest = json_of("random-forest", {});
  EXPECT_EQ(forest.at("max-features"), "auto");
  EXPECT_EQ(forest.at("criterion"), "auto");
  EXPECT_EQ(forest.at("kind"), "random-forest");
  EXPECT_EQ(json_of("random-forest", {{"max-features", "0.3"}}).at("max-features"), "0.3");
  EXPECT_EQ(json_of("random-forest", {{"max-features", "12"}}).at("max-features"), "12");
  EXPECT_EQ(json_of("random-forest", {{"criterion", "mse"}}).at("criterion"), "squared_error");
  EXPECT_EQ(json_of("random-forest", {{"kind", "et"}}).at("kind"), "extra-trees");
  EXPECT_EQ(json_of("inffs", {}).at("solver"), "cg");
}

// The choices that may be numbers read their own text back, a fraction of
// 1.0 (every feature) included, which is not the count 1.
TEST(OptionChoices, NumberChoicesReadTheirOwnTextBack) {
  for (const char* text : {"auto", "off", "1", "30", "123456789012"}) {
    const ScreenSize screen = ScreenSize::parse_option("screen", text);
    EXPECT_EQ(screen.to_string(), text);
    EXPECT_EQ(ScreenSize::parse_option("screen", screen.to_string()), screen);
  }
  for (const char* bad : {"0", "-3", "1.5", "", "1234567890123", "some"}) {
    EXPECT_THROW(ScreenSize::parse_option("screen", bad), OptionError) << bad;
  }
  for (const char* text : {"auto", "sqrt", "log2", "all", "1", "12", "0.3", "1.0", "0.25"}) {
    const MaxFeatures parsed = MaxFeatures::parse_option("max-features", text);
    EXPECT_EQ(parsed.to_string(), text);
    const MaxFeatures again = MaxFeatures::parse_option("max-features", parsed.to_string());
    EXPECT_EQ(again.rule, parsed.rule) << text;
    EXPECT_EQ(again.value, parsed.value) << text;
  }
  EXPECT_EQ(MaxFeatures::parse_option("max-features", "1.0").rule, MaxFeatures::Rule::Fraction);
  EXPECT_EQ(MaxFeatures::parse_option("max-features", "1").rule, MaxFeatures::Rule::Count);
}

}  // namespace
}  // namespace topkfs
