#pragma once
// Choosing k and the lead model from the training rows alone (`--k auto`,
// `--method auto`; docs/algorithms.md, "Choosing k and the method"): each
// candidate method is fitted on part of the rows a selection learns from,
// its selection at each k of a grid judged by the downstream model of the
// paper's protocols on the rest, and k taken by the one-standard-error rule
// (cv.glmnet's lambda.1se) or as the best; the chosen method is then fitted
// on all those rows with the chosen k.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/pictures/picture.hpp"
#include "topkfs/scoring/downstream.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

enum class KRule { OneStandardError, Best };

KRule parse_k_rule(const std::string& name);  // 1se|best
const char* to_string(KRule rule);

// Below this many training rows one validation part of 20% holds fewer than
// 100 rows, whose accuracy has a standard error of 3 points or more at 90%
// (sqrt(0.09 / 100)): more than the methods' usual differences, so folds
// (every row validated once) replace it.
constexpr std::int64_t kFewTrainingRows = 500;
constexpr int kSmallDataFolds = 5;
// Choosing between methods reads how stable each one's selection is over the
// parts (choose_method), which one part cannot tell: above kFewTrainingRows
// the rows are then halved, two folds, at about the training cost of one
// part of 80% (each fit learns from half the rows).
constexpr int kMethodChoiceFolds = 2;

// The folds AutoOptions::folds gives for `rows` training rows when choosing
// between `candidates` methods (1: one part).
int resolved_folds(int folds, std::size_t rows, std::size_t candidates);

struct AutoOptions {
  bool auto_k = false;
  int k = 0;      // the k of every candidate when !auto_k
  int k_max = 0;  // the grid's end; 0: the smaller of the selectable count and 100
  // 0 (auto): kSmallDataFolds folds below kFewTrainingRows rows, else
  // kMethodChoiceFolds between several candidates and one part for one; 1:
  // one validation part of `validation` of the rows; F >= 2: F folds.
  int folds = 0;
  double validation = 0.2;
  KRule rule = KRule::OneStandardError;
  std::uint64_t seed = 0;
  DownstreamOptions downstream;
};

// One point of a validation curve: the downstream score of the selection of
// k (accuracy %, or MAE for real targets) over the validation parts.
struct KCurvePoint {
  int k = 0;
  double mean = 0.0;
  double se = 0.0;  // standard error: over the folds, or of the one part's rows
};

struct CandidateScore {
  std::string method;
  std::vector<KCurvePoint> curve;  // one point (the fixed k) without auto_k
  int k = 0;                       // the k chosen from the curve
  double mean = 0.0;               // the curve at k
  double se = 0.0;
  // Kuncheva's index of its selections of k over the validation parts (the
  // mean over pairs of parts; NaN with one part): how much the selection
  // depends on the rows it was learned from.
  double stability = std::numeric_limits<double>::quiet_NaN();
  // The score at k on each validation part, in the parts' order (the same
  // parts for every candidate): what a paired comparison of two candidates
  // reads.
  std::vector<double> parts;
  double seconds = 0.0;  // the candidate's validation fits and scores
  int fits = 0;
};

// The candidate --method auto takes: with one validation part the best score
// (ties to the first); with folds, of the candidates whose score lies within
// one standard error of the best's, with the two errors added (their
// one-standard-error intervals overlap), the one whose selection is the most
// stable over the folds (ties to the better score, then the first). Such
// scores do not tell the candidates apart; a selection that changes from
// fold to fold holds columns the data does not support (docs/algorithms.md,
// "Choosing k and the method").
std::size_t choose_method(const std::vector<CandidateScore>& scores, bool higher_is_better);

// 1, 2, 3, 5, 8, ... about x1.5 a step, up to and including k_max.
std::vector<int> k_grid(int k_max);

// The k `rule` takes from `curve` (higher_is_better: accuracy; else MAE):
// the best point, or the smallest k within one standard error of it.
int choose_k(const std::vector<KCurvePoint>& curve, KRule rule, bool higher_is_better);

using SelectorFactory = std::function<std::unique_ptr<Selector>()>;

// The lead models --method auto chooses between by default: the paper's
// (dnn-top), the linear ones that lead on wide, short data (elastic-net-top,
// and elastic-net, the best method on ALLAML), and the forest, best on the
// mixed tables (docs/algorithms.md, bench/quality/auto_rules.py).
const std::vector<std::string>& auto_method_candidates();

// The methods `method` stands for: "auto" the user's `requested` candidates
// (`--candidates`; empty: auto_method_candidates()), any other name itself.
// Throws OptionError for requested candidates without "auto", an unknown or
// repeated name, or "auto" among them.
std::vector<std::string> candidate_names(const std::string& method,
                                         const std::vector<std::string>& requested);

// A factory for each registered method of `names`, each giving its selector
// those of `options` (name -> text) it has. Throws OptionError for an option
// none of them has.
std::vector<SelectorFactory> candidate_factories(
    const std::vector<std::string>& names,
    const std::vector<std::pair<std::string, std::string>>& options);

// Scores each candidate on validation parts of `rows`, chooses the method
// (best score at its chosen k) and k, fits the chosen one on every row of
// `rows` and returns that fit's result with the choice in
// `SelectionResult::automatic` (every candidate's curve and score). A
// candidate whose training ignores k (Selector::ranking_depends_on_k) is
// fitted once per part and read at every k; the others once per k and part.
// Candidates that cannot fit the data's target are skipped with a note.
SelectionResult run_auto_selection(const Dataset& data,
                                   const std::vector<SelectorFactory>& candidates,
                                   const std::vector<std::int64_t>& rows,
                                   const AutoOptions& options, const FitCallbacks& callbacks);

// The validation curves of `automatic` (SelectionResult::automatic): one
// line per candidate with its standard errors, and the choice marked as a
// series of its own point ("chosen: k = K"; the title names the method).
RgbImage draw_auto_curves(const nlohmann::json& automatic, const std::string& data_name);

}  // namespace topkfs
