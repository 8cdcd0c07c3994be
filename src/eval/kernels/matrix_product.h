// Matrix products for the kernels (Gemm, MatMul, Conv's im2col, ConvTranspose): the one place they multiply
// matrices, through Eigen.
//
// float and double products run the Eigen kernel built for the widest instruction set this processor has
// (AVX-512, AVX2 with FMA, or the baseline the library is built for), chosen once per process: the library is
// built for baseline x86-64, whose SSE2 product kernel runs at a fraction of what the machine can do, and the
// opset move's proof spends most of its time in these products. Single-threaded (EIGEN_DONT_PARALLELIZE).
//
// What that means for the results: each output element is a sum whose order (Eigen's blocking) and rounding
// (fused multiply-adds or not) depend on the operands' sizes and on the kernel chosen. So one product
// computed twice in a process gives the same bits, which is what the proof needs (it compares two runs on the
// same machine), but another machine may give other last bits. Nothing the runner computes is written into a
// legalized model. ONNX Runtime (MLAS) sums in yet another order, which is why the differential tests bound
// float products in ULPs.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_H_

#include <cstdint>

namespace onnx_legalize {

// One operand of a product: the row-major matrix of `rows` x `cols` stored at `data` with rows `stride`
// elements apart, taken as it is or, when `transposed`, as its transpose.
template <typename T>
struct MatrixOperand {
  const T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t stride = 0;
  bool transposed = false;
};

// out = a x b, where out is row-major with rows `out_stride` elements apart and must not overlap a or b. The
// caller has checked that the inner dims agree. Defined for float, double, int32_t, int64_t, uint32_t and
// uint64_t (the integer products wrap as the kernels' other integer arithmetic does).
template <typename T>
void MultiplyMatrices(const MatrixOperand<T>& a, const MatrixOperand<T>& b, T* out, int64_t out_stride);

// The instruction set the float and double products use in this process: "avx512", "avx2" or "baseline".
const char* MatrixProductInstructionSet();

namespace internal {

// The instruction sets this processor and this build can run, widest first (tests compare them).
enum class MatrixIsa { kAvx512, kAvx2, kBaseline };
bool CanRun(MatrixIsa isa);
// MultiplyMatrices through the kernel of `isa`, which CanRun must allow.
void MultiplyMatricesWith(MatrixIsa isa, const MatrixOperand<float>& a, const MatrixOperand<float>& b, float* out,
                          int64_t out_stride);
void MultiplyMatricesWith(MatrixIsa isa, const MatrixOperand<double>& a, const MatrixOperand<double>& b, double* out,
                          int64_t out_stride);

}  // namespace internal
}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_MATRIX_PRODUCT_H_
