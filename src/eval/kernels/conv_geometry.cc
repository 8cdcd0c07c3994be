#include "eval/kernels/conv_geometry.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"

namespace onnx_legalize {

using ::absl::StrCat;

absl::StatusOr<std::vector<int64_t>> SpatialAttribute(const KernelContext& ctx, const char* name, size_t rank,
                                                      int64_t fallback) {
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> values, IntsAttribute(ctx.node, name));
  if (!values) return std::vector<int64_t>(rank, fallback);
  if (values->size() != rank) {
    return absl::InvalidArgumentError(StrCat("attribute '", name, "' ", DimsString(*values), " has ", values->size(),
                                             " values; the input has ", rank, " spatial dims"));
  }
  return *values;
}

namespace {

absl::Status CheckPositive(const std::vector<int64_t>& values, const char* name) {
  for (const int64_t value : values) {
    if (value <= 0) return absl::InvalidArgumentError(StrCat(name, " ", DimsString(values), " must be positive"));
  }
  return absl::OkStatus();
}

int64_t DivideRoundingUp(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t DivideRoundingDown(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

absl::StatusOr<WindowGeometry> SlidingWindow(const KernelContext& ctx, const std::vector<int64_t>& in,
                                             const std::vector<int64_t>& kernel, const WindowOptions& options) {
  WindowGeometry g;
  const size_t rank = in.size();
  g.in = in;
  g.kernel = kernel;
  ASSIGN_OR_RETURN(g.strides, SpatialAttribute(ctx, "strides", rank, 1));
  if (options.takes_dilations) {
    ASSIGN_OR_RETURN(g.dilations, SpatialAttribute(ctx, "dilations", rank, 1));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "dilations", "does not have"));
    g.dilations.assign(rank, 1);
  }
  RETURN_IF_ERROR(CheckPositive(g.kernel, "kernel"));
  RETURN_IF_ERROR(CheckPositive(g.strides, "strides"));
  RETURN_IF_ERROR(CheckPositive(g.dilations, "dilations"));
  ASSIGN_OR_RETURN(const std::string auto_pad, StringAttributeOr(ctx.node, "auto_pad", "NOTSET"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> pads, SpatialAttribute(ctx, "pads", 2 * rank, 0));
  g.pad_begin.assign(rank, 0);
  g.pad_end.assign(rank, 0);
  g.out.assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t extent = g.Extent(d);
    if (auto_pad == "NOTSET") {
      g.pad_begin[d] = pads[d];
      g.pad_end[d] = pads[rank + d];
      if (g.pad_begin[d] < 0 || g.pad_end[d] < 0) {
        return absl::InvalidArgumentError(StrCat("pads ", DimsString(pads), " are negative"));
      }
      const int64_t span = in[d] + g.pad_begin[d] + g.pad_end[d] - extent;
      g.out[d] =
          (options.ceil_mode ? DivideRoundingUp(span, g.strides[d]) : DivideRoundingDown(span, g.strides[d])) + 1;
      // Rounding up may add a window that starts in the end padding, past every input element: it is dropped, as
      // onnx's reference and ONNX Runtime drop it (a 2x2 input, kernel 1, stride 2: one output, not two).
      if (options.ceil_mode && (g.out[d] - 1) * g.strides[d] >= in[d] + g.pad_begin[d]) --g.out[d];
    } else if (auto_pad == "VALID") {
      g.out[d] = DivideRoundingDown(in[d] - extent, g.strides[d]) + 1;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.out[d] = DivideRoundingUp(in[d], g.strides[d]);
      const int64_t total = std::max<int64_t>(0, (g.out[d] - 1) * g.strides[d] + extent - in[d]);
      g.pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_end[d] = total - g.pad_begin[d];
    } else {
      return absl::InvalidArgumentError(
          StrCat("auto_pad '", auto_pad, "' is none of NOTSET, VALID, SAME_UPPER, SAME_LOWER"));
    }
    if (g.out[d] < 1) {
      return absl::InvalidArgumentError(StrCat("a window of extent ", extent, " does not fit spatial dim ", d,
                                               " of size ", in[d], " with pads ", g.pad_begin[d], "+", g.pad_end[d]));
    }
  }
  return g;
}

}  // namespace onnx_legalize
