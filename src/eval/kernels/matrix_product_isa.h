// The float and double products of each instruction set the build has a kernel for (matrix_product.h says
// why there are several). Only matrix_product.cc calls them, after checking that the processor runs them.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_ISA_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_ISA_H_

#include <cstdint>

#include "eval/kernels/matrix_product.h"

namespace onnx_legalize::internal {

// Built only on x86-64 (ONNX_LEGALIZE_MATRIX_AVX is then defined).
void MultiplyAvx512(const MatrixOperand<float>& a, const MatrixOperand<float>& b, float* out, int64_t out_stride);
void MultiplyAvx512(const MatrixOperand<double>& a, const MatrixOperand<double>& b, double* out, int64_t out_stride);
void MultiplyAvx2(const MatrixOperand<float>& a, const MatrixOperand<float>& b, float* out, int64_t out_stride);
void MultiplyAvx2(const MatrixOperand<double>& a, const MatrixOperand<double>& b, double* out, int64_t out_stride);

}  // namespace onnx_legalize::internal

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_ISA_H_
