#pragma once
// The fit every neural baseline shares: check the options and k, prepare
// the problem (neural_problem.hpp), train the method's model, fill the
// result. A method supplies its option table, its name and train().
#include <string>
#include <utility>
#include <vector>

#include "neural/train/neural_problem.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

// What a method's training hands back to the shared fit.
struct NeuralFit {
  // Per column; the selection is the top k (ties to the lower index).
  std::vector<double> scores;
  TrainingOutcome outcome;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
};

template <typename Options>
class NeuralSelector : public TableSelector<Options> {
 public:
  NeuralSelector(const OptionTable<Options>& table, std::string name)
      : TableSelector<Options>(table), name_(std::move(name)) {}

  std::string name() const override { return name_; }
  bool streams_rows() const override { return true; }
  bool data_parallel() const override { return true; }

  SelectionResult fit(const Dataset& data, const std::vector<std::int64_t>& rows, int k,
                      const FitCallbacks& callbacks) override {
    const auto start = NeuralClock::now();
    this->options_.validate();
    check_k(data, k);
    // One thread, whatever the count asked for: their losses draw noise
    // per call, so no team can take their steps, and threads in libtorch's
    // or OpenBLAS's pools would make the result depend on the count.
    const NeuralProblem problem =
        prepare_problem(data, rows, this->options_, data.image_shape.has_value(), ThreadUse::Serial,
                        callbacks.ranks);
    NeuralFit fit = train(problem, k, callbacks);
    SelectionResult result = neural_result(name_, k, std::move(fit.scores), data, problem,
                                           fit.outcome, this->options_json(), start);
    for (auto& note : fit.notes) result.notes.push_back(std::move(note));
    for (auto& warning : fit.warnings) result.warnings.push_back(std::move(warning));
    return result;
  }

 protected:
  virtual NeuralFit train(const NeuralProblem& problem, int k, const FitCallbacks& callbacks) = 0;

 private:
  std::string name_;
};

}  // namespace topkfs
