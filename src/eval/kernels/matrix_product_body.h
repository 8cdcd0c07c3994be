// The body of MultiplyMatrices, compiled once per instruction set: matrix_product_avx512.cc and
// matrix_product_avx2.cc include it under their -m flags, matrix_product.cc for the baseline. Eigen picks its
// kernels by the flags a file is compiled with, so each file instantiates a kernel of its own.
//
// Each of those files is compiled with `Eigen` defined as a name of its own (CMakeLists.txt), so that the
// Eigen templates it instantiates are symbols of their own: were they shared, the linker would keep one
// file's instantiation for all, and an AVX-512 kernel could run on a processor without it.
// tests/eval/matrix_isa_symbols_test.sh checks that those files define no other shared symbol.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_BODY_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_BODY_H_

#include <cstdint>

#include "Eigen/Core"
#include "eval/kernels/matrix_product.h"

namespace onnx_legalize {
namespace {  // internal linkage: each including file has its own copy

template <typename T>
void MultiplyWithEigen(const MatrixOperand<T>& a, const MatrixOperand<T>& b, T* out, int64_t out_stride) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ConstMap = Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
  using Map = Eigen::Map<Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
  const ConstMap a_map(a.data, a.rows, a.cols, Eigen::OuterStride<>(a.stride));
  const ConstMap b_map(b.data, b.rows, b.cols, Eigen::OuterStride<>(b.stride));
  Map out_map(out, a.transposed ? a.cols : a.rows, b.transposed ? b.rows : b.cols, Eigen::OuterStride<>(out_stride));
  if (a.transposed && b.transposed) {
    out_map.noalias() = a_map.transpose() * b_map.transpose();
  } else if (a.transposed) {
    out_map.noalias() = a_map.transpose() * b_map;
  } else if (b.transposed) {
    out_map.noalias() = a_map * b_map.transpose();
  } else {
    out_map.noalias() = a_map * b_map;
  }
}

}  // namespace
}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_BODY_H_
