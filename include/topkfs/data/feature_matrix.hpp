#pragma once
// FeatureMatrix: the samples x features float32 matrix of a Dataset. It either
// owns its buffer or borrows one that already has its layout (a C-contiguous
// float32 NumPy array, or a float32 .npy file mapped into memory), so that
// such data is read where it lies, not copied.
#include <Eigen/Core>

#include <cstdlib>
#include <memory>

#include "topkfs/data/row_source.hpp"

namespace topkfs {

// Row-major so that a minibatch of rows is one contiguous block (libtorch
// reads it without a copy).
using RowMajorFloatMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// An Eigen::Map over the current buffer, so every read, block and expression
// of Eigen works as on a matrix; the class adds what a Map lacks: storage
// management with the value semantics of an Eigen::Matrix.
//
// Owned storage (the default): copy is deep, move steals the buffer, resize
// and conservativeResize behave as Eigen's (new coefficients uninitialised;
// conservativeResize keeps the top-left block).
//
// Borrowed storage (borrow()): the matrix reads the lender's buffer, which
// its owner handle keeps alive; moves carry the borrow along. A borrowed
// matrix is read-only by convention:
// - operations on the whole matrix never write the lender's buffer: copying
//   it, assigning to it, resize, conservativeResize and setZero(rows, cols)
//   give the result owned storage (and let go of the owner);
// - element writes (m(i, j) = v, m.row(i) = ..., setZero(), +=) would reach
//   the lender's buffer, as through any Eigen::Map. Nothing in topkfs writes
//   into a Dataset it did not build: methods take it as const, and code that
//   changes values in place works on a copy.
//
// It is also a RowSource (rows copied by index, visited in blocks), the seam
// through which the minibatch trainer and the streaming statistics read
// rows, whether they are in memory or mapped from a file.
class FeatureMatrix : public Eigen::Map<RowMajorFloatMatrix>, public RowSource {
 public:
  using Base = Eigen::Map<RowMajorFloatMatrix>;
  using Index = Eigen::Index;

  FeatureMatrix() noexcept : Base(nullptr, 0, 0) {}
  FeatureMatrix(Index rows, Index cols) : FeatureMatrix() { resize(rows, cols); }
  FeatureMatrix(const FeatureMatrix& other);
  FeatureMatrix(FeatureMatrix&& other) noexcept : FeatureMatrix() { steal(other); }
  // Any dense Eigen expression, evaluated into owned storage (implicit, as
  // Eigen::Matrix's, so that `FeatureMatrix x = y.leftCols(2);` works).
  template <typename Derived>
  FeatureMatrix(const Eigen::DenseBase<Derived>& other) : FeatureMatrix() {
    assign(other.derived());
  }

  FeatureMatrix& operator=(const FeatureMatrix& other);
  FeatureMatrix& operator=(FeatureMatrix&& other) noexcept;
  template <typename Derived>
  FeatureMatrix& operator=(const Eigen::DenseBase<Derived>& other) {
    assign(other.derived());
    return *this;
  }

  // A matrix over `data` (rows x cols, row-major, no padding) without a copy.
  // `owner` keeps the buffer alive and is released when the matrix lets go of
  // the buffer (destroyed, resized, assigned to); null means the caller keeps
  // the buffer alive for as long as the matrix uses it. See the class comment
  // for what may be written.
  // `storage`: RowStorage::Mapped when `data` is a file mapped into memory
  // (what `topkfs info` reports), else InMemory.
  static FeatureMatrix borrow(const float* data, Index rows, Index cols,
                              std::shared_ptr<const void> owner,
                              RowStorage storage = RowStorage::InMemory);

  // True while the matrix reads a lent buffer rather than its own.
  bool borrowed() const { return data() != nullptr && data() != owned_.get(); }

  // As Eigen::Matrix: same size keeps the buffer (an owned one), another size
  // allocates new storage with uninitialised coefficients.
  void resize(Index rows, Index cols);
  // As Eigen::Matrix: the top-left min(rows) x min(cols) block keeps its
  // values, new coefficients are uninitialised.
  void conservativeResize(Index rows, Index cols);
  using Base::setZero;
  FeatureMatrix& setZero(Index rows, Index cols);

  // RowSource
  std::int64_t row_count() const override { return rows(); }
  std::int64_t column_count() const override { return cols(); }
  RowStorage storage() const override { return storage_; }
  void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const override;
  void for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                      const RowBlockVisitor& visit) const override;

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  using Buffer = std::unique_ptr<float, Free>;

  // Rebinds the Map to another buffer (placement new on the Map is the way
  // Eigen documents to change what a Map views).
  void rebind(float* data, Index rows, Index cols) noexcept {
    new (static_cast<Base*>(this)) Base(data, rows, cols);
  }
  // Takes `other`'s buffer and owner and leaves it empty.
  void steal(FeatureMatrix& other) noexcept;
  // Owned, uninitialised storage of rows x cols (the previous buffer and any
  // owner are released).
  void allocate(Index rows, Index cols);
  // Resizing assignment. When the size changes, or the matrix is borrowed,
  // the value is built in new storage before the old buffer goes, so that an
  // expression reading this matrix (m = m.topRows(3)) stays valid.
  template <typename Derived>
  void assign(const Derived& other) {
    if (!borrowed() && rows() == other.rows() && cols() == other.cols()) {
      Base::operator=(other);
      return;
    }
    FeatureMatrix fresh;
    fresh.allocate(other.rows(), other.cols());
    static_cast<Base&>(fresh) = other;
    steal(fresh);
  }

  Buffer owned_;
  std::shared_ptr<const void> lender_;
  RowStorage storage_ = RowStorage::InMemory;  // of the lender's buffer; owned: InMemory
};

}  // namespace topkfs
