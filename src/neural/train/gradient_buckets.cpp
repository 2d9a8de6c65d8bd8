#include "gradient_buckets.hpp"

#include <algorithm>
#include <cstring>

#include "topkfs/core/error.hpp"

namespace topkfs {

GradientBuckets::GradientBuckets(RankGroup& ranks, const std::vector<torch::Tensor>& parameters,
                                 int early, std::vector<std::int64_t> cuts,
                                 std::int64_t bucket_bytes)
    : ranks_(ranks), early_(early) {
  if (early_ < 0) return;
  const torch::Tensor& weights = parameters[static_cast<std::size_t>(early_)];
  TOPKFS_ASSERT(weights.dim() > 0 && cuts.size() >= 2 && cuts.front() == 0 &&
                cuts.back() == weights.size(0));
  early_cols_ = weights.numel() / std::max<std::int64_t>(1, weights.size(0));
  // Greedy from the first rows; a remainder below the size joins the last
  // bucket.
  const std::int64_t row_bytes = early_cols_ * static_cast<std::int64_t>(sizeof(float));
  std::int64_t first = 0;
  for (std::size_t range = 1; range < cuts.size(); ++range) {
    if ((cuts[range] - cuts[first]) * row_bytes >= bucket_bytes) {
      bucket_end_.push_back(range);
      first = static_cast<std::int64_t>(range);
    }
  }
  if (bucket_end_.empty()) {
    early_ = -1;  // not two buckets' worth: all in the last
    return;
  }
  bucket_end_.back() = cuts.size() - 1;
  if (bucket_end_.size() < 2) {
    bucket_end_.clear();
    early_ = -1;
    return;
  }
  cuts_ = std::move(cuts);
  early_buffer_ = torch::empty({weights.numel()});
  ready_.assign(cuts_.size() - 1, nullptr);
  done_.assign(bucket_end_.size(), 0);
}

GradientBuckets::~GradientBuckets() = default;

void GradientBuckets::begin_step(double weight) {
  TOPKFS_ASSERT(sums_.empty());
  weight_ = weight;
  std::fill(ready_.begin(), ready_.end(), nullptr);
  std::fill(done_.begin(), done_.end(), 0);
  started_ = 0;
}

void GradientBuckets::pack(const float* from, float* to, std::int64_t n) const {
  if (from == nullptr || weight_ <= 0) {
    std::memset(to, 0, sizeof(float) * static_cast<std::size_t>(n));
    return;
  }
  const auto w = static_cast<float>(weight_);
  for (std::int64_t i = 0; i < n; ++i) to[i] = w * from[i];
}

void GradientBuckets::take_range(std::size_t range, const float* rows) {
  float* to = early_buffer_.data_ptr<float>() + cuts_[range] * early_cols_;
  pack(rows, to, (cuts_[range + 1] - cuts_[range]) * early_cols_);
  TOPKFS_ASSERT(ready_[range] == nullptr);
  ready_[range] = rows != nullptr ? rows : to;
  const auto bucket = static_cast<std::size_t>(
      std::upper_bound(bucket_end_.begin(), bucket_end_.end(), range) - bucket_end_.begin());
  ++done_[bucket];
}

void GradientBuckets::rows_ready(int range, const float* rows) {
  const std::lock_guard<std::mutex> lock(starting_);
  take_range(static_cast<std::size_t>(range), rows);
  start_ready();
}

void GradientBuckets::start_ready() {
  while (started_ < bucket_end_.size()) {
    const std::size_t first = started_ == 0 ? 0 : bucket_end_[started_ - 1];
    if (done_[started_] < bucket_end_[started_] - first) return;
    const std::int64_t begin = cuts_[first] * early_cols_;
    const std::int64_t end = cuts_[bucket_end_[started_]] * early_cols_;
    sums_.push_back(ranks_.start_sum(early_buffer_.data_ptr<float>() + begin,
                                     static_cast<std::size_t>(end - begin)));
    ++started_;
  }
}

double GradientBuckets::finish(std::vector<torch::Tensor>& parameters, double loss,
                               const std::vector<torch::Tensor>& statistics) {
  // The early ranges that the backward pass did not finish (a rank without
  // rows, a loss that did not go through the team's layer): from .grad.
  bool early_defined = false;
  if (early_ >= 0) {
    torch::Tensor grad = parameters[static_cast<std::size_t>(early_)].grad();
    if (grad.defined()) grad = grad.contiguous();
    const float* from = grad.defined() ? grad.data_ptr<float>() : nullptr;
    const std::lock_guard<std::mutex> lock(starting_);
    early_defined = grad.defined() || std::any_of(ready_.begin(), ready_.end(),
                                                  [](const float* r) { return r != nullptr; });
    for (std::size_t range = 0; range < ready_.size(); ++range) {
      const float* rows = from ? from + cuts_[range] * early_cols_ : nullptr;
      if (ready_[range] != nullptr) {
        // The ranges given during the backward pass are the final .grad
        // (undefined after a loss that was not finite: the step fails).
        TOPKFS_ASSERT(from == nullptr || rows == ready_[range]);
        continue;
      }
      take_range(range, rows);
    }
    start_ready();
  }

  std::int64_t size = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (static_cast<int>(i) != early_) size += parameters[i].numel();
  }
  for (const auto& s : statistics) size += s.numel();
  const std::int64_t flags = size;
  size += static_cast<std::int64_t>(parameters.size()) + 1;
  if (!rest_buffer_.defined() || rest_buffer_.numel() != size) rest_buffer_ = torch::empty({size});
  float* flat = rest_buffer_.data_ptr<float>();
  std::int64_t at = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const bool is_early = static_cast<int>(i) == early_;
    const torch::Tensor grad = is_early ? torch::Tensor() : parameters[i].grad();
    if (!is_early) {
      const torch::Tensor values = grad.defined() ? grad.contiguous() : grad;
      TOPKFS_ASSERT(!values.defined() || values.scalar_type() == torch::kFloat);
      pack(values.defined() ? values.data_ptr<float>() : nullptr, flat + at, parameters[i].numel());
      at += parameters[i].numel();
    }
    flat[flags + static_cast<std::int64_t>(i)] =
        (is_early ? early_defined : grad.defined()) ? 1.0f : 0.0f;
  }
  for (const auto& s : statistics) {
    TOPKFS_ASSERT(s.is_contiguous() && s.scalar_type() == torch::kFloat);
    pack(s.data_ptr<float>(), flat + at, s.numel());
    at += s.numel();
  }
  flat[size - 1] = weight_ > 0 ? static_cast<float>(weight_ * loss) : 0.0f;
  // The last bucket is waited for at once: summed on this thread
  // (RankGroup::sum), then the early buckets' sums are waited for in order;
  // after a failure their destructors wait before the buffers can go.
  try {
    ranks_.sum(flat, static_cast<std::size_t>(size));
    for (auto& sum : sums_) sum->wait();
  } catch (...) {
    sums_.clear();
    throw;
  }
  sums_.clear();

  at = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    auto& p = parameters[i];
    const bool defined = flat[flags + static_cast<std::int64_t>(i)] > 0;
    if (static_cast<int>(i) == early_) {
      if (defined) {
        p.mutable_grad() = early_buffer_.view(p.sizes());
      } else {
        p.mutable_grad().reset();
      }
      continue;
    }
    const std::int64_t n = p.numel();
    if (defined) {
      p.mutable_grad() = rest_buffer_.narrow(0, at, n).view(p.sizes());
    } else {
      p.mutable_grad().reset();
    }
    at += n;
  }
  for (const auto& s : statistics) {
    const std::int64_t n = s.numel();
    std::memcpy(s.data_ptr<float>(), flat + at, sizeof(float) * static_cast<std::size_t>(n));
    at += n;
  }
  return flat[size - 1];
}

}  // namespace topkfs
