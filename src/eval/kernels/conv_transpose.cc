// ConvTranspose (ConvTranspose-1 and -11 mean the same), by a matrix product through Eigen and col2im:
//
//   for each image n and group g:
//     col [Mg*K, P_in] = W_g^T [Mg*K, Cg] x X_g [Cg, P_in]
//     Y[n, g*Mg + m, i * stride - pad_begin + k * dilation] += col[m * K + k, i]   (rows, then positions, in order)
//   then Y[n, m, p] += B[m]
//
// The output's spatial size is output_shape when given, else
//   stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - pad_begin - pad_end
// With output_shape, or auto_pad SAME_* (output = in * stride), the pads are made from the total padding
// stride * (in - 1) + output_padding + extent - output: ConvTranspose-11's text gives SAME_UPPER's odd one to
// the end and every other mode's to the beginning. Its halving rounds down, as onnx's reference (Python's //)
// does: an output_shape one past the full output is a total of -1, a pad of -1 at the end and 0 at the
// beginning, so the output grows at its end (onnx's node test test_convtranspose_output_shape, ONNX Runtime).
//
// Also here: the operand checks Conv shares (conv_kernels.h).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/conv_geometry.h"
#include "eval/kernels/conv_kernels.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/matrix_product.h"
#include "eval/kernels/numeric.h"

namespace onnx_legalize {

using ::absl::StrCat;

absl::StatusOr<ConvOperands> CheckConvOperands(const KernelContext& ctx, const Tensor& x, const Tensor& w,
                                               const Tensor* b, bool transposed) {
  if (x.type() != w.type() || (b != nullptr && b->type() != x.type())) {
    return absl::InvalidArgumentError(StrCat("X is ", Describe(x), ", W ", Describe(w),
                                             b != nullptr ? StrCat(", B ", Describe(*b)) : "", ": types differ"));
  }
  if (x.rank() < 3 || w.rank() != x.rank()) {
    return absl::InvalidArgumentError(
        StrCat("X is ", Describe(x), " and W ", Describe(w), "; they must be [N, C, spatial...] of one rank >= 3"));
  }
  ConvOperands operands;
  ASSIGN_OR_RETURN(operands.group, IntAttributeOr(ctx.node, "group", 1));
  operands.spatial.assign(x.dims().begin() + 2, x.dims().end());
  operands.kernel.assign(w.dims().begin() + 2, w.dims().end());
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> kernel_shape, IntsAttribute(ctx.node, "kernel_shape"));
  if (kernel_shape && *kernel_shape != operands.kernel) {
    return absl::InvalidArgumentError(
        StrCat("kernel_shape ", DimsString(*kernel_shape), " differs from W ", Describe(w)));
  }
  const int64_t channels = x.dims()[1], group = operands.group;
  const int64_t maps = transposed ? w.dims()[1] * group : w.dims()[0];
  const int64_t per_group = transposed ? w.dims()[0] : w.dims()[1] * group;
  if (group <= 0 || channels % group != 0 || maps % group != 0 || per_group != channels) {
    return absl::InvalidArgumentError(StrCat("X ", Describe(x), " and W ", Describe(w), " do not fit group ", group));
  }
  if (b != nullptr && (b->rank() != 1 || b->dims()[0] != maps)) {
    return absl::InvalidArgumentError(StrCat("B is ", Describe(*b), "; it must be [", maps, "]"));
  }
  return operands;
}

namespace {

// total / 2 rounded toward minus infinity (C++'s / rounds toward zero): the half of a negative total padding.
int64_t HalfRoundedDown(int64_t total) { return total / 2 - (total < 0 && total % 2 != 0 ? 1 : 0); }

// The geometry of ConvTranspose: `out` is the output's spatial dims; pads as the file comment says.
absl::StatusOr<WindowGeometry> TransposedWindow(const KernelContext& ctx, const ConvOperands& operands) {
  WindowGeometry g;
  const size_t rank = operands.spatial.size();
  g.in = operands.spatial;
  g.kernel = operands.kernel;
  ASSIGN_OR_RETURN(g.strides, SpatialAttribute(ctx, "strides", rank, 1));
  ASSIGN_OR_RETURN(g.dilations, SpatialAttribute(ctx, "dilations", rank, 1));
  ASSIGN_OR_RETURN(const std::vector<int64_t> output_padding, SpatialAttribute(ctx, "output_padding", rank, 0));
  ASSIGN_OR_RETURN(const std::vector<int64_t> pads, SpatialAttribute(ctx, "pads", 2 * rank, 0));
  ASSIGN_OR_RETURN(const std::string auto_pad, StringAttributeOr(ctx.node, "auto_pad", "NOTSET"));
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> output_shape, IntsAttribute(ctx.node, "output_shape"));
  // output_shape may name the whole output ([N, M, spatial...]); its spatial part is what counts.
  if (output_shape && output_shape->size() == rank + 2)
    output_shape->erase(output_shape->begin(), output_shape->begin() + 2);
  if (output_shape && output_shape->size() != rank) {
    return absl::InvalidArgumentError(
        StrCat("output_shape ", DimsString(*output_shape), " does not have ", rank, " spatial dims"));
  }
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return absl::InvalidArgumentError(
        StrCat("auto_pad '", auto_pad, "' is none of NOTSET, VALID, SAME_UPPER, SAME_LOWER"));
  }
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  g.pad_begin.assign(rank, 0);
  g.pad_end.assign(rank, 0);
  g.out.assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    if (g.strides[d] <= 0 || g.dilations[d] <= 0 || output_padding[d] < 0) {
      return absl::InvalidArgumentError("strides and dilations must be positive, output_padding not negative");
    }
    const int64_t full = g.strides[d] * (g.in[d] - 1) + output_padding[d] + g.Extent(d);
    if (output_shape || same) {
      g.out[d] = output_shape ? (*output_shape)[d] : g.in[d] * g.strides[d];
      const int64_t total = full - g.out[d];
      const int64_t half = HalfRoundedDown(total);
      g.pad_begin[d] = auto_pad == "SAME_UPPER" ? half : total - half;
      g.pad_end[d] = total - g.pad_begin[d];
    } else {
      if (auto_pad == "NOTSET") {
        g.pad_begin[d] = pads[d];
        g.pad_end[d] = pads[rank + d];
      }
      g.out[d] = full - g.pad_begin[d] - g.pad_end[d];
    }
    if (g.out[d] < 1) {
      return absl::InvalidArgumentError(StrCat("the output's spatial dim ", d, " would be ", g.out[d]));
    }
  }
  return g;
}

// Adds col [Mg*K, P_in] into y (the group's first map) at the positions each (kernel offset, input position)
// reaches.
template <typename T>
void Col2Im(const T* col, int64_t maps, const WindowGeometry& g, T* y) {
  const size_t rank = g.rank();
  const int64_t out_size = DimsProduct(g.out, 0, rank);
  const int64_t in_size = DimsProduct(g.in, 0, rank);
  const int64_t kernel_size = DimsProduct(g.kernel, 0, rank);
  std::vector<int64_t> k(rank), i(rank);
  for (int64_t m = 0; m < maps; ++m) {
    std::fill(k.begin(), k.end(), 0);
    for (int64_t kk = 0; kk < kernel_size; ++kk) {
      const T* row = col + (m * kernel_size + kk) * in_size;
      std::fill(i.begin(), i.end(), 0);
      for (int64_t p = 0; p < in_size; ++p) {
        int64_t offset = 0;
        bool inside = true;
        for (size_t d = 0; d < rank && inside; ++d) {
          const int64_t o = i[d] * g.strides[d] - g.pad_begin[d] + k[d] * g.dilations[d];
          inside = o >= 0 && o < g.out[d];
          offset = offset * g.out[d] + o;
        }
        if (inside) y[m * out_size + offset] += row[p];
        for (size_t d = rank; d-- > 0;) {
          if (++i[d] < g.in[d]) break;
          i[d] = 0;
        }
      }
      for (size_t d = rank; d-- > 0;) {
        if (++k[d] < g.kernel[d]) break;
        k[d] = 0;
      }
    }
  }
}

template <typename T>
absl::StatusOr<Tensor> ApplyConvTranspose(const Tensor& x, const Tensor& w, const Tensor* b, const WindowGeometry& g,
                                          int64_t group) {
  const int64_t n_images = x.dims()[0], channels = x.dims()[1];
  const int64_t cg = channels / group, mg = w.dims()[1], maps = mg * group;
  const int64_t kernel_size = DimsProduct(g.kernel, 0, g.rank());
  const int64_t in_size = DimsProduct(g.in, 0, g.rank());
  const int64_t out_size = DimsProduct(g.out, 0, g.rank());
  std::vector<int64_t> out_dims = {n_images, maps};
  out_dims.insert(out_dims.end(), g.out.begin(), g.out.end());
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(out_dims, "ConvTranspose's output"));
  RETURN_IF_ERROR(CheckValueSize(mg * kernel_size * in_size, "ConvTranspose's column buffer"));
  const std::vector<T> xv = ReadAs<T>(x), wv = ReadAs<T>(w);
  std::vector<T> y(static_cast<size_t>(count), T{0});
  std::vector<T> col(static_cast<size_t>(mg * kernel_size * in_size));
  for (int64_t n = 0; n < n_images; ++n) {
    for (int64_t gi = 0; gi < group; ++gi) {
      const int64_t w_cols = mg * kernel_size;
      MultiplyMatrices<T>({wv.data() + gi * cg * w_cols, cg, w_cols, w_cols, /*transposed=*/true},
                          {xv.data() + (n * channels + gi * cg) * in_size, cg, in_size, in_size}, col.data(), in_size);
      Col2Im(col.data(), mg, g, y.data() + (n * maps + gi * mg) * out_size);
    }
  }
  if (b != nullptr) {
    const std::vector<T> bias = ReadAs<T>(*b);
    for (int64_t n = 0; n < n_images; ++n) {
      for (int64_t m = 0; m < maps; ++m) {
        T* run = y.data() + (n * maps + m) * out_size;
        for (int64_t p = 0; p < out_size; ++p) run[p] += bias[m];
      }
    }
  }
  return WriteAs<T>(x.type(), out_dims, y);
}

}  // namespace

absl::StatusOr<Outputs> RunConvTranspose(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 3));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const Tensor* w, RequiredInput(ctx, 1, "W"));
  const Tensor* b = ctx.Input(2);
  ASSIGN_OR_RETURN(const ConvOperands operands, CheckConvOperands(ctx, *x, *w, b, /*transposed=*/true));
  ASSIGN_OR_RETURN(const WindowGeometry g, TransposedWindow(ctx, operands));
  // Each input element is scattered into W's dims past the first (M/group x the kernel).
  const int64_t scattered = w->dims()[0] > 0 ? w->element_count() / w->dims()[0] : 0;
  RETURN_IF_ERROR(AffordWork(ctx, SaturatingMul(x->element_count(), scattered), "the transposed convolution"));
  return Single(VisitFloating(x->type(), "ConvTranspose", [&](auto tag) {
    return ApplyConvTranspose<decltype(tag)>(*x, *w, b, g, operands.group);
  }));
}

}  // namespace onnx_legalize
