#pragma once
// The pictures of an evaluation report (docs/pictures.md): the score against
// k, the selected pixels of each method, and how often each feature was
// selected across the runs of the stability protocol.
#include <string>

#include "topkfs/data/dataset.hpp"
#include "topkfs/evaluation/evaluation.hpp"
#include "topkfs/pictures/picture.hpp"

namespace topkfs {

// One line per method: the mean score at each k with its standard deviation
// as error bars (stability: the Kuncheva index). Accuracy and F1 axes run
// from 0 to 100 only when a score is near 0; otherwise they fit the data.
RgbImage draw_score_curve(const EvaluationReport& report, const std::string& data_name);

// Image data: one panel per method with its selection of the first run at
// the largest k over the mean image. Throws OptionError without an image shape.
RgbImage draw_method_selections(const Dataset& data, const EvaluationReport& report);

// Stability protocol: the share of runs that selected each feature at the
// largest k, for `method` (drawn as an image for image data).
RgbImage draw_method_frequency(const Dataset& data, const EvaluationReport& report,
                               const MethodSummary& method);

}  // namespace topkfs
