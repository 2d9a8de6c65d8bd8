#pragma once
// A fit's progress in words, for the lines a user sees (the command's
// stderr, Python's verbose fit): "epoch 3/20  loss 0.4210" for the methods
// that train in epochs, "path point 37/100  objective 0.1234" for the
// linear methods' regularization path (ProgressUnit).
#include <fmt/format.h>

#include <string>

#include "topkfs/core/callbacks.hpp"

namespace topkfs {

inline std::string progress_line(const Progress& progress) {
  return progress.unit == ProgressUnit::PathPoints
             ? fmt::format("path point {}/{}  objective {:.4f}", progress.epoch, progress.epochs,
                           progress.loss)
             : fmt::format("epoch {}/{}  loss {:.4f}", progress.epoch, progress.epochs,
                           progress.loss);
}

}  // namespace topkfs
