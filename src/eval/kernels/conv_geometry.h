// The window geometry Conv, ConvTranspose, MaxPool and AveragePool share: kernel, strides, dilations and pads
// per spatial dim, from the attributes (auto_pad NOTSET with explicit `pads`, VALID, SAME_UPPER, SAME_LOWER),
// and the output size they give.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_CONV_GEOMETRY_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_CONV_GEOMETRY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/kernels/kernel.h"

namespace onnx_legalize {

struct WindowGeometry {
  std::vector<int64_t> in;  // spatial input dims
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pad_begin;
  std::vector<int64_t> pad_end;
  std::vector<int64_t> out;  // spatial output dims

  size_t rank() const { return in.size(); }
  // The extent one window covers: (kernel - 1) * dilation + 1.
  int64_t Extent(size_t d) const { return (kernel[d] - 1) * dilations[d] + 1; }
};

struct WindowOptions {
  bool ceil_mode = false;       // MaxPool-10/AveragePool-10's ceil_mode
  bool takes_dilations = true;  // AveragePool has none before opset 19
};

// The geometry of a sliding window over `in` (spatial dims) with `kernel`, from the node's strides,
// dilations, pads and auto_pad:
//   NOTSET: out = floor((in + pad_begin + pad_end - extent) / stride) + 1 (ceil with ceil_mode);
//   VALID: no pads, out = floor((in - extent) / stride) + 1;
//   SAME_UPPER / SAME_LOWER: out = ceil(in / stride), the total pad max(0, (out - 1) * stride + extent - in)
//   split evenly, the odd one at the end (UPPER) or the beginning (LOWER).
// InvalidArgument for attributes of the wrong length, non-positive strides/dilations/kernel, negative pads,
// an unknown auto_pad, or a window larger than the padded input.
absl::StatusOr<WindowGeometry> SlidingWindow(const KernelContext& ctx, const std::vector<int64_t>& in,
                                             const std::vector<int64_t>& kernel, const WindowOptions& options);

// The spatial attribute `name` (strides, dilations, kernel_shape, output_padding, ...): `rank` values, or
// `rank` copies of `fallback` when absent.
absl::StatusOr<std::vector<int64_t>> SpatialAttribute(const KernelContext& ctx, const char* name, size_t rank,
                                                      int64_t fallback);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_CONV_GEOMETRY_H_
