// Matrix products through Eigen, the one place the kernels multiply matrices (Gemm, MatMul, Conv's im2col,
// ConvTranspose). Single-threaded (EIGEN_DONT_PARALLELIZE): Eigen's product kernel then adds the terms of
// each output element in an order fixed by the operands' sizes (its blocking) and the build, so one product
// computed twice gives the same bits. That order is not a plain left-to-right sum, and differs from ONNX
// Runtime's (MLAS), which is why the differential tests bound float products in ULPs.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_H_

#include <cstdint>

#include "Eigen/Core"

namespace onnx_legalize {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// A row-major rows x cols matrix at `data` whose rows start `stride` elements apart.
template <typename T>
ConstMatrixMap<T> ConstMatrix(const T* data, int64_t rows, int64_t cols, int64_t stride) {
  return ConstMatrixMap<T>(data, rows, cols, Eigen::OuterStride<>(stride));
}
template <typename T>
MatrixMap<T> MutableMatrix(T* data, int64_t rows, int64_t cols, int64_t stride) {
  return MatrixMap<T>(data, rows, cols, Eigen::OuterStride<>(stride));
}

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_H_
