// MultiplyMatrices: the float and double products go to the widest instruction set's kernel the processor
// runs, chosen once; the integer products, and every product on other processors, use the baseline kernel
// compiled here.
#include "eval/kernels/matrix_product.h"

#include <cstdint>
#include <type_traits>

#include "eval/kernels/matrix_product_body.h"
#include "eval/kernels/matrix_product_isa.h"

namespace onnx_legalize {
namespace internal {
namespace {

template <typename T>
void MultiplyWith(MatrixIsa isa, const MatrixOperand<T>& a, const MatrixOperand<T>& b, T* out, int64_t out_stride) {
  switch (isa) {
#ifdef ONNX_LEGALIZE_MATRIX_AVX
    case MatrixIsa::kAvx512: return MultiplyAvx512(a, b, out, out_stride);
    case MatrixIsa::kAvx2: return MultiplyAvx2(a, b, out, out_stride);
#endif
    default: return MultiplyWithEigen(a, b, out, out_stride);
  }
}

MatrixIsa ChosenIsa() {
  static const MatrixIsa chosen = [] {
    for (const MatrixIsa isa : {MatrixIsa::kAvx512, MatrixIsa::kAvx2}) {
      if (CanRun(isa)) return isa;
    }
    return MatrixIsa::kBaseline;
  }();
  return chosen;
}

}  // namespace

bool CanRun(MatrixIsa isa) {
#ifdef ONNX_LEGALIZE_MATRIX_AVX
  // The compiler's check asks the processor (cpuid) and the operating system (xgetbv: it saves the wider
  // registers) both.
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  switch (isa) {
    case MatrixIsa::kAvx512:
      return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
    case MatrixIsa::kAvx2: return avx2;
    case MatrixIsa::kBaseline: return true;
  }
  return false;
#else
  return isa == MatrixIsa::kBaseline;
#endif
}

void MultiplyMatricesWith(MatrixIsa isa, const MatrixOperand<float>& a, const MatrixOperand<float>& b, float* out,
                          int64_t out_stride) {
  MultiplyWith(isa, a, b, out, out_stride);
}

void MultiplyMatricesWith(MatrixIsa isa, const MatrixOperand<double>& a, const MatrixOperand<double>& b, double* out,
                          int64_t out_stride) {
  MultiplyWith(isa, a, b, out, out_stride);
}

}  // namespace internal

template <typename T>
void MultiplyMatrices(const MatrixOperand<T>& a, const MatrixOperand<T>& b, T* out, int64_t out_stride) {
  if constexpr (std::is_floating_point_v<T>) {
    internal::MultiplyWith(internal::ChosenIsa(), a, b, out, out_stride);
  } else {
    MultiplyWithEigen(a, b, out, out_stride);
  }
}

template void MultiplyMatrices(const MatrixOperand<float>&, const MatrixOperand<float>&, float*, int64_t);
template void MultiplyMatrices(const MatrixOperand<double>&, const MatrixOperand<double>&, double*, int64_t);
template void MultiplyMatrices(const MatrixOperand<int32_t>&, const MatrixOperand<int32_t>&, int32_t*, int64_t);
template void MultiplyMatrices(const MatrixOperand<int64_t>&, const MatrixOperand<int64_t>&, int64_t*, int64_t);
template void MultiplyMatrices(const MatrixOperand<uint32_t>&, const MatrixOperand<uint32_t>&, uint32_t*, int64_t);
template void MultiplyMatrices(const MatrixOperand<uint64_t>&, const MatrixOperand<uint64_t>&, uint64_t*, int64_t);

const char* MatrixProductInstructionSet() {
  switch (internal::ChosenIsa()) {
    case internal::MatrixIsa::kAvx512: return "avx512";
    case internal::MatrixIsa::kAvx2: return "avx2";
    case internal::MatrixIsa::kBaseline: return "baseline";
  }
  return "baseline";
}

}  // namespace onnx_legalize
