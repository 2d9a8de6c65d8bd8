#include "training_checkpoint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/serialize/archive.h>

#include <cstring>
#include <filesystem>
#include <limits>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/io/atomic_file.hpp"

namespace topkfs {
namespace {

constexpr const char* kFormat = "topkfs training checkpoint";

// A 64-bit hash of byte ranges, eight bytes at a time: enough to tell one
// dataset from another (not a defence against forgery).
class Fingerprint {
 public:
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, p + i, 8);
      mix(word);
    }
    std::uint64_t tail = 0;
    if (bytes > i) std::memcpy(&tail, p + i, bytes - i);  // p may be null when bytes is 0
    mix(tail ^ (static_cast<std::uint64_t>(bytes) << 56));
  }
  void add(const torch::Tensor& tensor) {
    if (!tensor.defined()) return mix(0);
    const torch::Tensor flat = tensor.contiguous();
    add(flat.data_ptr(), static_cast<std::size_t>(flat.numel()) * flat.element_size());
  }
  std::string hex() const { return fmt::format("{:016x}", hash_); }

 private:
  void mix(std::uint64_t word) {
    hash_ ^= word * 0x9e3779b97f4a7c15ULL;
    hash_ = (hash_ << 29 | hash_ >> 35) * 0xbf58476d1ce4e5b9ULL;
  }
  std::uint64_t hash_ = 0x243f6a8885a308d3ULL;
};

std::string data_fingerprint(const TrainingSet& data) {
  Fingerprint print;
  const auto add_rows = [&](const std::vector<std::int64_t>& rows) {
    print.add(rows.data(), rows.size() * sizeof(std::int64_t));
    std::vector<float> values(static_cast<std::size_t>(data.features->column_count()));
    for (const auto row : rows) {
      data.features->copy_rows(&row, 1, values.data());
      print.add(values.data(), values.size() * sizeof(float));
    }
  };
  add_rows(data.train_rows);
  add_rows(data.validation_rows);
  print.add(data.targets);
  print.add(data.offset);
  print.add(data.inv_scale);
  // Only when weighted, so that an unweighted run's fingerprint is as before.
  if (data.weights.defined()) print.add(data.weights);
  return print.hex();
}

// A hash of everything a checkpoint holds, stored with it, so that a
// checkpoint whose bytes changed on disk is refused rather than resumed from
// altered weights: libtorch's reader does not check the archive's own CRCs.
std::string checksum_of(const LoopCheckpoint& checkpoint) {
  Fingerprint print;
  const auto add_number = [&](auto value) { print.add(&value, sizeof value); };
  const auto add_text = [&](const std::string& text) {
    add_number(text.size());
    print.add(text.data(), text.size());
  };
  const auto add_tensors = [&](const std::vector<torch::Tensor>& tensors) {
    add_number(tensors.size());
    for (const auto& tensor : tensors) print.add(tensor);
  };
  add_text(checkpoint.identity.dump());
  add_number(checkpoint.epoch);
  for (const auto& record : checkpoint.history) {
    add_number(record.epoch);
    add_number(record.loss);
    add_number(record.val_loss.has_value());
    add_number(record.val_loss.value_or(0.0));
    add_number(record.seconds);
  }
  add_number(checkpoint.last_val.has_value());
  add_number(checkpoint.last_val.value_or(0.0));
  add_tensors(checkpoint.model_state);
  add_tensors(checkpoint.adam_moments);
  add_number(checkpoint.adam_steps);
  add_text(checkpoint.shuffle_state);
  add_number(checkpoint.row_order.size());
  print.add(checkpoint.row_order.data(), checkpoint.row_order.size() * sizeof(std::int64_t));
  const StoppingState& stopping = checkpoint.stopping;
  add_number(stopping.best_val);
  add_tensors(stopping.best_state);
  add_number(stopping.epochs_without_improvement);
  add_number(stopping.best_epoch);
  add_number(stopping.stopped_early);
  return print.hex();
}

std::string key(const char* group, std::size_t index) { return fmt::format("{}_{}", group, index); }

void write_tensors(torch::serialize::OutputArchive& archive, const char* group,
                   const std::vector<torch::Tensor>& tensors) {
  archive.write(fmt::format("{}_count", group),
                c10::IValue(static_cast<std::int64_t>(tensors.size())));
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    archive.write(key(group, i), tensors[i].detach().contiguous(), /*is_buffer=*/true);
  }
}

// Whether every value of `tensor` lies inside its storage. libtorch's
// unpickler builds a tensor from the storage, sizes, strides and offset that
// the file states, without checking them against each other: a corrupt
// checkpoint can claim more values than it stores, and reading the tensor
// then reads past the storage (seen by mutating a checkpoint's bytes).
bool inside_storage(const torch::Tensor& tensor) {
  if (tensor.numel() == 0) return true;
  if (!tensor.has_storage() || tensor.storage_offset() < 0) return false;
  std::int64_t last = tensor.storage_offset();  // the last element's index
  for (std::int64_t d = 0; d < tensor.dim(); ++d) {
    std::int64_t reach = 0;
    if (tensor.stride(d) < 0 ||
        __builtin_mul_overflow(tensor.size(d) - 1, tensor.stride(d), &reach) ||
        __builtin_add_overflow(last, reach, &last)) {
      return false;
    }
  }
  std::int64_t end_byte = 0;
  if (__builtin_add_overflow(last, 1, &last) ||
      __builtin_mul_overflow(last, static_cast<std::int64_t>(tensor.element_size()), &end_byte)) {
    return false;
  }
  return static_cast<std::uint64_t>(end_byte) <= tensor.storage().nbytes();
}

// The archive's reads, with every failure a FileError naming the file.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {
    try {
      archive_.load_from(path_);
    } catch (const std::exception&) {
      fail(
          "cannot be read as a checkpoint: the file is truncated, corrupt, or not one (its "
          "archive cannot be opened)");
    }
  }
  bool has(const std::string& name) {
    c10::IValue out;
    return guarded([&] { return archive_.try_read(name, out); }, name);
  }
  c10::IValue value(const std::string& name) {
    c10::IValue out;
    if (!guarded([&] { return archive_.try_read(name, out); }, name)) {
      fail(fmt::format("has no '{}'", name));
    }
    return out;
  }
  std::int64_t integer(const std::string& name) {
    const auto out = value(name);
    if (!out.isInt()) fail(fmt::format("'{}' is not an integer", name));
    return out.toInt();
  }
  std::string text(const std::string& name) {
    const auto out = value(name);
    if (!out.isString()) fail(fmt::format("'{}' is not text", name));
    return out.toStringRef();
  }
  torch::Tensor tensor(const std::string& name) {
    torch::Tensor out;
    if (!guarded([&] { return archive_.try_read(name, out, /*is_buffer=*/true); }, name)) {
      fail(fmt::format("has no '{}'", name));
    }
    if (!inside_storage(out)) {
      fail(fmt::format("is corrupt: '{}' (shape {}) reaches past the values stored for it", name,
                       fmt::join(out.sizes(), " x ")));
    }
    return out;
  }
  double number(const std::string& name) {
    const torch::Tensor out = tensor(name);
    if (out.numel() != 1) fail(fmt::format("'{}' is not one number", name));
    return out.item<double>();
  }
  std::vector<torch::Tensor> tensors(const char* group) {
    const std::int64_t count = integer(fmt::format("{}_count", group));
    std::vector<torch::Tensor> out;
    for (std::int64_t i = 0; i < count; ++i) {
      out.push_back(tensor(key(group, static_cast<std::size_t>(i))));
    }
    return out;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw FileError(fmt::format("{}: {}", path_, what));
  }

 private:
  // A read, with libtorch's own errors on a corrupt entry said in this
  // file's terms: its messages (c10::Error, the script parser's, a
  // std::out_of_range from a corrupt archive: mutated checkpoints gave all
  // three) carry stack traces and may quote the file's bytes.
  template <typename Read>
  bool guarded(Read read, const std::string& name) const {
    try {
      return read();
    } catch (const std::exception&) {
      fail(fmt::format("is corrupt: its entry '{}' cannot be read", name));
    }
  }

  std::string path_;
  torch::serialize::InputArchive archive_;
};

// The history as rows of (epoch, loss, has validation, validation loss,
// seconds) in doubles, which hold every field exactly.
torch::Tensor history_tensor(const std::vector<EpochRecord>& history) {
  torch::Tensor out = torch::zeros({static_cast<std::int64_t>(history.size()), 5}, torch::kDouble);
  auto rows = out.accessor<double, 2>();
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto& record = history[i];
    const auto r = static_cast<std::int64_t>(i);
    rows[r][0] = record.epoch;
    rows[r][1] = record.loss;
    rows[r][2] = record.val_loss ? 1.0 : 0.0;
    rows[r][3] = record.val_loss.value_or(0.0);
    rows[r][4] = record.seconds;
  }
  return out;
}

std::vector<EpochRecord> history_of(const torch::Tensor& tensor, const Reader& reader) {
  if (tensor.dim() != 2 || tensor.size(1) != 5 || tensor.scalar_type() != torch::kDouble) {
    reader.fail("its loss history has the wrong shape");
  }
  std::vector<EpochRecord> out;
  const auto rows = tensor.accessor<double, 2>();
  for (std::int64_t r = 0; r < tensor.size(0); ++r) {
    EpochRecord record;
    record.epoch = static_cast<int>(rows[r][0]);
    record.loss = rows[r][1];
    if (rows[r][2] != 0.0) record.val_loss = rows[r][3];
    record.seconds = rows[r][4];
    out.push_back(record);
  }
  return out;
}

// The first place where `saved` and `current` differ, as "a.b is X in the
// checkpoint, Y here"; empty when they are equal.
std::string first_difference(const nlohmann::json& saved, const nlohmann::json& current,
                             const std::string& where) {
  if (saved.is_object() && current.is_object()) {
    for (const auto& [name, value] : current.items()) {
      const std::string path = where.empty() ? name : where + "." + name;
      if (!saved.contains(name)) return fmt::format("{} is not in the checkpoint", path);
      auto difference = first_difference(saved.at(name), value, path);
      if (!difference.empty()) return difference;
    }
    for (const auto& [name, value] : saved.items()) {
      if (!current.contains(name)) {
        return fmt::format("{} is {} in the checkpoint and not set here",
                           where.empty() ? name : where + "." + name, value.dump());
      }
    }
    return {};
  }
  if (saved == current) return {};
  return fmt::format("{} is {} in the checkpoint, {} here", where, saved.dump(), current.dump());
}

}  // namespace

nlohmann::json loop_identity(const nlohmann::json& run, const TrainingSet& data,
                             const LoopSettings& settings) {
  return {{"run", run},
          {"loop",
           {{"epochs", settings.epochs},
            {"batch", settings.batch},
            {"lr", settings.adam.lr},
            {"beta1", settings.adam.beta1},
            {"beta2", settings.adam.beta2},
            {"eps", settings.adam.eps},
            {"clip", settings.adam.clip},
            {"patience", settings.patience},
            {"min_steps", settings.min_steps},
            {"seed", settings.seed}}},
          {"data",
           {{"train_rows", data.train_rows.size()},
            {"validation_rows", data.validation_rows.size()},
            {"columns", data.features->column_count()},
            {"fingerprint", data_fingerprint(data)}}}};
}

void write_checkpoint(const std::string& path, const LoopCheckpoint& checkpoint) {
  torch::serialize::OutputArchive archive;
  archive.write("format", c10::IValue(std::string(kFormat)));
  archive.write("version", c10::IValue(kCheckpointVersion));
  archive.write("identity", c10::IValue(checkpoint.identity.dump()));
  archive.write("epoch", c10::IValue(static_cast<std::int64_t>(checkpoint.epoch)));
  archive.write("history", history_tensor(checkpoint.history), /*is_buffer=*/true);
  archive.write("last_val",
                checkpoint.last_val ? torch::full({1}, *checkpoint.last_val, torch::kDouble)
                                    : torch::empty({0}, torch::kDouble),
                /*is_buffer=*/true);
  write_tensors(archive, "model_state", checkpoint.model_state);
  write_tensors(archive, "adam_moment", checkpoint.adam_moments);
  archive.write("adam_steps", c10::IValue(checkpoint.adam_steps));
  archive.write("shuffle_state", c10::IValue(checkpoint.shuffle_state));
  archive.write("row_order", torch::tensor(checkpoint.row_order, torch::kLong).contiguous(),
                /*is_buffer=*/true);
  const StoppingState& stopping = checkpoint.stopping;
  archive.write("best_val", torch::full({1}, stopping.best_val, torch::kDouble),
                /*is_buffer=*/true);
  write_tensors(archive, "best_state", stopping.best_state);
  archive.write("epochs_without_improvement",
                c10::IValue(static_cast<std::int64_t>(stopping.epochs_without_improvement)));
  archive.write("best_epoch", c10::IValue(static_cast<std::int64_t>(stopping.best_epoch)));
  archive.write("stopped_early", c10::IValue(static_cast<std::int64_t>(stopping.stopped_early)));
  archive.write("checksum", c10::IValue(checksum_of(checkpoint)));
  write_file_atomically(path, [&](std::ostream& out) {
    try {
      archive.save_to(out);
    } catch (const c10::Error& error) {
      throw FileError(
          fmt::format("{}: cannot write the checkpoint: {}", path, error.what_without_backtrace()));
    }
  });
}

void check_checkpoint_path(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) return;
  if (status.type() == std::filesystem::file_type::regular) {
    try {
      if (Reader(path).text("format") == kFormat) return;
    } catch (const FileError&) {
      // not a checkpoint: refused below
    }
  }
  throw FileError(fmt::format(
      "{}: exists and is not a topkfs training checkpoint; a fit with a checkpoint would replace "
      "it: choose another path, or remove the file first",
      path));
}

LoopCheckpoint read_checkpoint(const std::string& path) {
  Reader reader(path);
  if (!reader.has("format")) {
    reader.fail(reader.has("topkfs_metadata")
                    ? fmt::format("is a model written by {}, not a training checkpoint: {} takes "
                                  "the file that {} writes",
                                  option_ref("save-model"), option_ref("resume"),
                                  option_ref("checkpoint"))
                    : "is not a topkfs training checkpoint (it has no 'format')");
  }
  if (reader.text("format") != kFormat) reader.fail("is not a topkfs training checkpoint");
  if (const auto version = reader.integer("version"); version != kCheckpointVersion) {
    reader.fail(fmt::format("is a checkpoint of version {}; this topkfs reads version {}", version,
                            kCheckpointVersion));
  }
  LoopCheckpoint out;
  try {
    out.identity = nlohmann::json::parse(reader.text("identity"));
  } catch (const nlohmann::json::exception&) {
    reader.fail("its identity is not JSON");
  }
  out.epoch = static_cast<int>(reader.integer("epoch"));
  out.history = history_of(reader.tensor("history"), reader);
  const torch::Tensor last_val = reader.tensor("last_val");
  if (last_val.numel() == 1) out.last_val = last_val.item<double>();
  out.model_state = reader.tensors("model_state");
  out.adam_moments = reader.tensors("adam_moment");
  out.adam_steps = reader.integer("adam_steps");
  out.shuffle_state = reader.text("shuffle_state");
  const torch::Tensor order = reader.tensor("row_order").contiguous();
  if (order.scalar_type() != torch::kLong) reader.fail("its row order is not int64");
  out.row_order.assign(order.data_ptr<std::int64_t>(),
                       order.data_ptr<std::int64_t>() + order.numel());
  out.stopping.best_val = reader.number("best_val");
  out.stopping.best_state = reader.tensors("best_state");
  out.stopping.epochs_without_improvement =
      static_cast<int>(reader.integer("epochs_without_improvement"));
  out.stopping.best_epoch = static_cast<int>(reader.integer("best_epoch"));
  out.stopping.stopped_early = reader.integer("stopped_early") != 0;
  if (out.epoch < 0 || static_cast<std::size_t>(out.epoch) != out.history.size()) {
    reader.fail("its epoch count and loss history disagree");
  }
  if (reader.text("checksum") != checksum_of(out)) {
    reader.fail("is corrupt: what it holds does not match the checksum written with it");
  }
  return out;
}

void check_same_run(const std::string& path, const nlohmann::json& saved,
                    const nlohmann::json& current) {
  // The caller's part first: a changed option is named as the user gave it.
  // Checkpoints written before every team size trained alike recorded it;
  // it no longer matters.
  nlohmann::json saved_loop = saved.value("loop", nlohmann::json());
  if (saved_loop.is_object()) saved_loop.erase("team_size");
  std::string difference;
  for (const char* part : {"run", "data", "loop"}) {
    if (!difference.empty()) break;
    const nlohmann::json& saved_part =
        std::string(part) == "loop" ? saved_loop : saved.value(part, nlohmann::json());
    difference = first_difference(saved_part, current.value(part, nlohmann::json()), part);
  }
  if (difference.empty()) return;
  throw OptionError(
      fmt::format("{}: the checkpoint is of another run ({}); resume with the data and options it "
                  "was written with, or start afresh without {}",
                  path, difference, option_ref("resume")));
}

LoopCheckpoint capture_loop(const nlohmann::json& identity, const std::vector<EpochRecord>& history,
                            const std::optional<double>& last_val, LoopModel& model,
                            EpochRunner& runner, const EarlyStopping& stopping) {
  LoopCheckpoint out;
  out.identity = identity;
  out.epoch = static_cast<int>(history.size());
  out.history = history;
  out.last_val = last_val;
  // The archive is written before training goes on, so the tensors need no
  // copies: it serialises them as they are now.
  out.model_state = model.state();
  out.adam_moments = runner.optimizer().moments();
  out.adam_steps = runner.optimizer().steps();
  out.shuffle_state = runner.shuffle_state();
  out.row_order = runner.row_order();
  out.stopping = stopping.state();
  return out;
}

void restore_loop(const std::string& path, LoopCheckpoint saved, LoopModel& model,
                  EpochRunner& runner, EarlyStopping& stopping) {
  const auto fits = [](const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].sizes() != b[i].sizes() || a[i].scalar_type() != b[i].scalar_type()) return false;
    }
    return true;
  };
  auto state = model.state();
  const auto moments = runner.optimizer().moments();
  const auto& best = saved.stopping.best_state;
  if (!fits(saved.model_state, state) || !fits(saved.adam_moments, moments) ||
      (!best.empty() && !fits(best, state))) {
    throw DataError(fmt::format("{}: the checkpoint's tensors do not fit this network", path));
  }
  {
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i < state.size(); ++i) state[i].copy_(saved.model_state[i]);
  }
  runner.optimizer().restore(saved.adam_moments, saved.adam_steps);
  try {
    runner.resume(saved.shuffle_state, std::move(saved.row_order));
  } catch (const DataError& error) {
    throw DataError(fmt::format("{}: {}", path, error.what()));
  }
  stopping.resume(std::move(saved.stopping));
}

}  // namespace topkfs
