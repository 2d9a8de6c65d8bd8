#include "topkfs/data/feature_matrix.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <new>
#include <utility>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

// Bytes of a rows x cols float matrix; bad_alloc (as Eigen throws) when the
// count does not fit a size_t.
std::size_t byte_count(Eigen::Index rows, Eigen::Index cols) {
  TOPKFS_ASSERT(rows >= 0 && cols >= 0);
  const auto r = static_cast<std::size_t>(rows);
  const auto c = static_cast<std::size_t>(cols);
  if (c != 0 && r > std::numeric_limits<std::size_t>::max() / sizeof(float) / c) {
    throw std::bad_alloc();
  }
  return r * c * sizeof(float);
}

}  // namespace

FeatureMatrix::FeatureMatrix(const FeatureMatrix& other) : FeatureMatrix() {
  allocate(other.rows(), other.cols());
  std::copy_n(other.data(), other.size(), data());
}

FeatureMatrix& FeatureMatrix::operator=(const FeatureMatrix& other) {
  if (this != &other) assign(static_cast<const Base&>(other));
  return *this;
}

FeatureMatrix& FeatureMatrix::operator=(FeatureMatrix&& other) noexcept {
  if (this != &other) steal(other);
  return *this;
}

FeatureMatrix FeatureMatrix::borrow(const float* data, Index rows, Index cols,
                                    std::shared_ptr<const void> owner, RowStorage storage) {
  TOPKFS_ASSERT(rows >= 0 && cols >= 0 && (data != nullptr || rows * cols == 0));
  FeatureMatrix out;
  // The Map needs a mutable pointer; the class comment says why nothing
  // writes through it.
  out.rebind(const_cast<float*>(data), rows, cols);
  out.lender_ = std::move(owner);
  out.storage_ = storage;
  return out;
}

void FeatureMatrix::steal(FeatureMatrix& other) noexcept {
  const Index rows = other.rows();
  const Index cols = other.cols();
  float* data = other.data();
  owned_ = std::move(other.owned_);
  lender_ = std::move(other.lender_);
  storage_ = other.storage_;
  other.storage_ = RowStorage::InMemory;
  rebind(data, rows, cols);
  other.rebind(nullptr, 0, 0);
}

void FeatureMatrix::allocate(Index rows, Index cols) {
  const std::size_t bytes = byte_count(rows, cols);
  Buffer buffer;
  if (bytes > 0) {
    // malloc, not new float[]: the coefficients stay uninitialised (as
    // Eigen's), so untouched pages of a large matrix cost no memory.
    buffer.reset(static_cast<float*>(std::malloc(bytes)));
    if (!buffer) throw std::bad_alloc();
  }
  owned_ = std::move(buffer);
  lender_.reset();
  storage_ = RowStorage::InMemory;
  rebind(owned_.get(), rows, cols);
}

void FeatureMatrix::resize(Index rows, Index cols) {
  if (!borrowed() && byte_count(rows, cols) == static_cast<std::size_t>(size()) * sizeof(float)) {
    rebind(data(), rows, cols);
    return;
  }
  allocate(rows, cols);
}

void FeatureMatrix::conservativeResize(Index rows, Index cols) {
  const std::size_t bytes = byte_count(rows, cols);
  if (!borrowed() && owned_ && cols == this->cols() && bytes > 0) {
    // Row-major with the same width: the kept rows are a prefix of the
    // buffer, so realloc keeps them (and gives memory back when shrinking).
    auto* grown = static_cast<float*>(std::realloc(owned_.get(), bytes));
    if (grown == nullptr) throw std::bad_alloc();
    static_cast<void>(owned_.release());
    owned_.reset(grown);
    rebind(grown, rows, cols);
    return;
  }
  FeatureMatrix kept(rows, cols);
  const Index r = std::min(rows, this->rows());
  const Index c = std::min(cols, this->cols());
  kept.topLeftCorner(r, c) = topLeftCorner(r, c);
  steal(kept);
}

FeatureMatrix& FeatureMatrix::setZero(Index rows, Index cols) {
  resize(rows, cols);
  Base::setZero();
  return *this;
}

void FeatureMatrix::copy_rows(const std::int64_t* rows, std::size_t count, float* out) const {
  const auto width = static_cast<std::size_t>(cols());
  for (std::size_t i = 0; i < count; ++i, out += width) {
    std::copy_n(data() + static_cast<std::size_t>(rows[i]) * width, width, out);
  }
}

void FeatureMatrix::for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                                   const RowBlockVisitor& visit) const {
  const std::int64_t step = std::max<std::int64_t>(1, block_rows);
  for (std::int64_t begin = first; begin < last; begin += step) {
    visit(begin, std::min(step, last - begin), data() + begin * cols());
  }
}

}  // namespace topkfs
