#include "data_parallel.hpp"

#include <cstring>

#include "topkfs/core/error.hpp"

namespace topkfs {

DataParallel::DataParallel(RankGroup& ranks, std::int64_t rows)
    : ranks_(ranks), shard_(row_shard(rows, ranks.rank(), ranks.size())) {}

void DataParallel::local_rows(const std::vector<std::int64_t>& rows, std::size_t begin,
                              std::size_t end, std::vector<std::int64_t>& out) const {
  out.clear();
  for (std::size_t i = begin; i < end; ++i) {
    if (shard_.contains(rows[i])) out.push_back(rows[i]);
  }
}

double DataParallel::sum_step(std::vector<torch::Tensor>& parameters, double loss, double weight,
                              const std::vector<torch::Tensor>& statistics) {
  // Layout: the gradients, the statistics, one "defined" flag per
  // parameter, the loss.
  std::int64_t size = 0;
  for (const auto& p : parameters) size += p.numel();
  for (const auto& s : statistics) size += s.numel();
  const std::int64_t flags = size;
  size += static_cast<std::int64_t>(parameters.size()) + 1;
  if (!buffer_.defined() || buffer_.numel() != size) buffer_ = torch::empty({size});
  float* flat = buffer_.data_ptr<float>();
  const auto w = static_cast<float>(weight);
  std::int64_t at = 0;
  // `n`: the size of the place, from the parameter (an undefined gradient
  // has none of its own).
  const auto pack = [&](const torch::Tensor& tensor, std::int64_t n) {
    if (tensor.defined() && weight > 0) {
      TOPKFS_ASSERT(tensor.is_contiguous() && tensor.scalar_type() == torch::kFloat);
      const float* from = tensor.data_ptr<float>();
      for (std::int64_t i = 0; i < n; ++i) flat[at + i] = w * from[i];
    } else {
      std::memset(flat + at, 0, sizeof(float) * static_cast<std::size_t>(n));
    }
    at += n;
  };
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const torch::Tensor grad = parameters[i].grad();
    pack(grad.defined() ? grad.contiguous() : grad, parameters[i].numel());
    flat[flags + static_cast<std::int64_t>(i)] = grad.defined() ? 1.0f : 0.0f;
  }
  for (const auto& s : statistics) pack(s, s.numel());
  flat[size - 1] = weight > 0 ? static_cast<float>(weight * loss) : 0.0f;

  ranks_.sum(flat, static_cast<std::size_t>(size));

  at = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    auto& p = parameters[i];
    const std::int64_t n = p.numel();
    if (flat[flags + static_cast<std::int64_t>(i)] > 0) {
      p.mutable_grad() = buffer_.narrow(0, at, n).view(p.sizes());
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

double DataParallel::mean_over_ranks(double sum, std::size_t count) const {
  double parts[2] = {sum, static_cast<double>(count)};
  ranks_.sum(parts, 2);
  return parts[0] / parts[1];
}

}  // namespace topkfs
