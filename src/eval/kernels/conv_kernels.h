// What Conv (conv.cc) and ConvTranspose (conv_transpose.cc) share: the checks of X, W, B and group.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_CONV_KERNELS_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_CONV_KERNELS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/kernels/kernel.h"

namespace onnx_legalize {

struct ConvOperands {
  std::vector<int64_t> spatial;  // X's spatial dims
  std::vector<int64_t> kernel;   // W's spatial dims (kernel_shape, when given, must equal them)
  int64_t group = 1;
};

// X is [N, C, spatial...] and W [M, C/group, kernel...] (Conv) or [C, M/group, kernel...] (ConvTranspose), of
// one floating type, with B (optional) of [M]; group divides C and M.
absl::StatusOr<ConvOperands> CheckConvOperands(const KernelContext& ctx, const Tensor& x, const Tensor& w,
                                               const Tensor* b, bool transposed);

absl::StatusOr<Outputs> RunConvTranspose(const KernelContext& ctx);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_CONV_KERNELS_H_
