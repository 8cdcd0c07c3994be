// Broadcasting: numpy's multidirectional rule (Add-7 and later, Sum-8, Where, Expand, ...) and the legacy
// rule of the binary ops before opset 7 (`broadcast` and `axis` attributes), both reduced to one form: each
// operand's dims padded to the output's rank, a dim of 1 repeating. A kernel then walks the output with
// each operand's offset (ForEachBroadcast).
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_BROADCAST_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_BROADCAST_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/kernels/kernel.h"

namespace onnx_legalize {

// Numpy's rule: dims aligned from the last, each pair equal or one of them 1. InvalidArgument otherwise.
absl::StatusOr<std::vector<int64_t>> BroadcastDims(const std::vector<std::vector<int64_t>>& operands);

// Whether `from` broadcasts to exactly `to` one way (numpy's rule with `to` fixed: PRelu-7's slope, Gemm-7's C,
// Expand's input).
bool BroadcastsTo(const std::vector<int64_t>& from, const std::vector<int64_t>& to);

// The shapes of a binary op's operands and result.
struct BinaryShapes {
  std::vector<int64_t> out;
  std::vector<int64_t> a;  // A's dims, as the output reads them (padded to its rank)
  std::vector<int64_t> b;
};

// The shapes of Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal, Less, Greater at ctx.opset(): before opset 7,
// their `broadcast` attribute (default 0: same dims) lets B's dims be a contiguous run of A's, starting at
// `axis` or ending at A's last dim when `axis` is absent (Add-1/6's text: "shape(A) = (2, 3, 4, 5),
// shape(B) = (3, 4), with axis=1"), a dim of 1 or a one-element B repeating; from opset 7, numpy's rule.
absl::StatusOr<BinaryShapes> BinaryOperandShapes(const KernelContext& ctx, const std::vector<int64_t>& a,
                                                 const std::vector<int64_t>& b);

// The element strides with which an operand of dims `in` (padded to the output's rank, or shorter: aligned
// to the last dim) is read at each output dim: 0 where it repeats.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in, const std::vector<int64_t>& out);

// Calls fn(output_index, offsets) for every output element in row-major order, with offsets[k] the element
// of operand k it reads (given each operand's BroadcastStrides).
template <size_t N, typename Fn>
void ForEachBroadcast(const std::vector<int64_t>& out_dims, const std::array<std::vector<int64_t>, N>& strides,
                      Fn&& fn) {
  int64_t total = 1;
  for (const int64_t dim : out_dims) total *= dim;
  if (total == 0) return;
  const size_t rank = out_dims.size();
  if (rank == 0) {
    fn(int64_t{0}, std::array<int64_t, N>{});
    return;
  }
  std::vector<int64_t> coordinate(rank, 0);
  std::array<int64_t, N> offsets{};
  const int64_t inner = out_dims[rank - 1];
  std::array<int64_t, N> inner_stride{};
  for (size_t k = 0; k < N; ++k) inner_stride[k] = strides[k][rank - 1];
  for (int64_t index = 0; index < total;) {
    std::array<int64_t, N> at = offsets;
    for (int64_t i = 0; i < inner; ++i, ++index) {
      fn(index, at);
      for (size_t k = 0; k < N; ++k) at[k] += inner_stride[k];
    }
    // Next coordinate over the outer dims, last fastest, keeping each operand's offset.
    for (size_t d = rank - 1; d-- > 0;) {
      for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
      if (++coordinate[d] < out_dims[d]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * out_dims[d];
      coordinate[d] = 0;
    }
  }
}

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_BROADCAST_H_
