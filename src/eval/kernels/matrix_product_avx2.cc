// The products built for AVX2 with FMA (the flags are CMakeLists.txt's, and so is this file's own name for
// Eigen: matrix_product_body.h says why).
#include "eval/kernels/matrix_product_body.h"
#include "eval/kernels/matrix_product_isa.h"

namespace onnx_legalize::internal {

void MultiplyAvx2(const MatrixOperand<float>& a, const MatrixOperand<float>& b, float* out, int64_t out_stride) {
  MultiplyWithEigen(a, b, out, out_stride);
}

void MultiplyAvx2(const MatrixOperand<double>& a, const MatrixOperand<double>& b, double* out, int64_t out_stride) {
  MultiplyWithEigen(a, b, out, out_stride);
}

}  // namespace onnx_legalize::internal
