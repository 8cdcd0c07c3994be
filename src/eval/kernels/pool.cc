// Pooling: MaxPool, AveragePool (windows as conv_geometry.h says), GlobalAveragePool, GlobalMaxPool.
//
// Versions: MaxPool-8 adds storage_order and the Indices output, MaxPool-10/AveragePool-10 ceil_mode,
// MaxPool-10 and AveragePool-19 dilations, AveragePool-7 count_include_pad; an attribute used before its
// version is an error.
// MaxPool keeps the first greatest element in window order, starting from the type's lowest value (NaN
// never wins, as in ONNX Runtime); the padding takes no part. AveragePool adds its window in row-major order
// and divides by the number of elements inside the input, or, with count_include_pad, inside the padded
// input (a dilated window's elements, not the span they cover: onnx's reference counts the taps). Global pools reduce
// every spatial position in row-major order. float16 is computed in float.
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/conv_geometry.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"
#include "eval/typed_elements.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

constexpr int64_t kStorageOrderOpset = 8;
constexpr int64_t kCeilModeOpset = 10;
constexpr int64_t kCountIncludePadOpset = 7;
constexpr int64_t kAveragePoolDilationsOpset = 19;

struct PoolInput {
  int64_t planes;  // N * C
  WindowGeometry g;
  std::vector<int64_t> out_dims;
};

absl::StatusOr<PoolInput> PoolWindow(const KernelContext& ctx, const Tensor& x, bool is_max) {
  if (x.rank() < 3)
    return absl::InvalidArgumentError(StrCat("X is ", Describe(x), "; pooling takes [N, C, spatial...]"));
  const std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> kernel, IntsAttribute(ctx.node, "kernel_shape"));
  if (!kernel) return absl::InvalidArgumentError("attribute 'kernel_shape' is missing");
  if (kernel->size() != spatial.size()) {
    return absl::InvalidArgumentError(StrCat("kernel_shape ", DimsString(*kernel), " does not fit X ", Describe(x)));
  }
  WindowOptions options;
  options.takes_dilations = ctx.OpsetAtLeast(is_max ? kCeilModeOpset : kAveragePoolDilationsOpset);
  if (ctx.OpsetAtLeast(kCeilModeOpset)) {
    ASSIGN_OR_RETURN(options.ceil_mode, IntAttributeOr(ctx.node, "ceil_mode", 0));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "ceil_mode", "does not have (added at opset 10)"));
  }
  PoolInput input;
  ASSIGN_OR_RETURN(input.g, SlidingWindow(ctx, spatial, *kernel, options));
  input.planes = x.dims()[0] * x.dims()[1];
  input.out_dims = {x.dims()[0], x.dims()[1]};
  input.out_dims.insert(input.out_dims.end(), input.g.out.begin(), input.g.out.end());
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(input.out_dims, "the pooled output"));
  int64_t window = 1;
  for (const int64_t size : *kernel) window = SaturatingMul(window, size);
  RETURN_IF_ERROR(AffordWork(ctx, SaturatingMul(count, window), "the pooling windows"));
  return input;
}

// Calls fn(output_position, window_start) for every output position of one plane, then visit(k, i) per
// window element through `each`.
template <typename Fn>
void ForEachWindow(const WindowGeometry& g, Fn&& fn) {
  const size_t rank = g.rank();
  const int64_t positions = DimsProduct(g.out, 0, rank);
  std::vector<int64_t> o(rank, 0), start(rank);
  for (int64_t p = 0; p < positions; ++p) {
    for (size_t d = 0; d < rank; ++d) start[d] = o[d] * g.strides[d] - g.pad_begin[d];
    fn(p, start);
    for (size_t d = rank; d-- > 0;) {
      if (++o[d] < g.out[d]) break;
      o[d] = 0;
    }
  }
}

// Calls visit(spatial_offset, spatial_coordinates) for each window element inside the input, in row-major order.
template <typename Visit>
void ForEachInWindow(const WindowGeometry& g, const std::vector<int64_t>& start, Visit&& visit) {
  const size_t rank = g.rank();
  const int64_t kernel_size = DimsProduct(g.kernel, 0, rank);
  std::vector<int64_t> k(rank, 0), at(rank);
  for (int64_t kk = 0; kk < kernel_size; ++kk) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d < rank && inside; ++d) {
      at[d] = start[d] + k[d] * g.dilations[d];
      inside = at[d] >= 0 && at[d] < g.in[d];
      offset = offset * g.in[d] + at[d];
    }
    if (inside) visit(offset, at);
    for (size_t d = rank; d-- > 0;) {
      if (++k[d] < g.kernel[d]) break;
      k[d] = 0;
    }
  }
}

// The column-major index of spatial coordinates (MaxPool's storage_order = 1).
int64_t ColumnMajor(const std::vector<int64_t>& at, const std::vector<int64_t>& dims) {
  int64_t index = 0;
  for (size_t d = dims.size(); d-- > 0;) index = index * dims[d] + at[d];
  return index;
}

// MaxPool of one 2-D plane without indices: the windows and the order within them that ForEachWindow and
// ForEachInWindow give, without their per-element bookkeeping (which cost the proof of a CNN a tenth of its
// time). The order matters for the sign of a zero: the first of -0 and +0 stays.
template <typename T>
void MaxPoolPlane2d(const T* in, const WindowGeometry& g, T* out) {
  const int64_t in_h = g.in[0], in_w = g.in[1];
  for (int64_t oh = 0; oh < g.out[0]; ++oh) {
    const int64_t top = oh * g.strides[0] - g.pad_begin[0];
    for (int64_t ow = 0; ow < g.out[1]; ++ow, ++out) {
      const int64_t left = ow * g.strides[1] - g.pad_begin[1];
      T best = std::numeric_limits<T>::lowest();
      for (int64_t kh = 0; kh < g.kernel[0]; ++kh) {
        const int64_t ih = top + kh * g.dilations[0];
        if (ih < 0 || ih >= in_h) continue;
        const T* in_row = in + ih * in_w;
        for (int64_t kw = 0; kw < g.kernel[1]; ++kw) {
          const int64_t iw = left + kw * g.dilations[1];
          if (iw >= 0 && iw < in_w && in_row[iw] > best) best = in_row[iw];
        }
      }
      *out = best;
    }
  }
}

template <typename T>
absl::StatusOr<Outputs> ApplyMaxPool(const Tensor& x, const PoolInput& input, bool want_indices, bool column_major) {
  const ElementsAs<T> xv(x);
  const int64_t in_size = DimsProduct(input.g.in, 0, input.g.rank());
  const int64_t out_size = DimsProduct(input.g.out, 0, input.g.rank());
  ASSIGN_OR_RETURN(OutputAs<T> y, OutputAs<T>::Make(x.type(), input.out_dims));  // one element per window
  std::vector<int64_t> indices(want_indices ? y.size() : 0);
  for (int64_t plane = 0; plane < input.planes; ++plane) {
    const T* in = xv.data() + plane * in_size;
    if (input.g.rank() == 2 && !want_indices) {
      MaxPoolPlane2d(in, input.g, y.data() + plane * out_size);
      continue;
    }
    ForEachWindow(input.g, [&](int64_t p, const std::vector<int64_t>& start) {
      T best = std::numeric_limits<T>::lowest();
      int64_t best_index = -1;
      ForEachInWindow(input.g, start, [&](int64_t offset, const std::vector<int64_t>& at) {
        const int64_t index = column_major ? ColumnMajor(at, input.g.in) : offset;
        if (best_index < 0) best_index = index;  // the first element, should none exceed the lowest value
        if (in[offset] > best) {
          best = in[offset];
          best_index = index;
        }
      });
      y[plane * out_size + p] = best;
      if (want_indices) indices[plane * out_size + p] = plane * in_size + best_index;
    });
  }
  Outputs outputs = {Share(std::move(y).Finish())};
  if (want_indices) {
    ASSIGN_OR_RETURN(Tensor index_tensor, TensorOf<int64_t>(onnx::TensorProto::INT64, input.out_dims, indices));
    outputs.push_back(Share(std::move(index_tensor)));
  }
  return outputs;
}

absl::StatusOr<Outputs> RunMaxPool(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  int64_t storage_order = 0;
  if (ctx.OpsetAtLeast(kStorageOrderOpset)) {
    ASSIGN_OR_RETURN(storage_order, IntAttributeOr(ctx.node, "storage_order", 0));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "storage_order", "does not have (added at opset 8)"));
  }
  ASSIGN_OR_RETURN(const PoolInput input, PoolWindow(ctx, *x, /*is_max=*/true));
  const bool want_indices = ctx.WantsOutput(1);
  if (want_indices && !ctx.OpsetAtLeast(kStorageOrderOpset)) {
    return absl::InvalidArgumentError("MaxPool has an Indices output only from opset 8");
  }
  return VisitNumeric(x->type(), "MaxPool", [&](auto tag) {
    return ApplyMaxPool<decltype(tag)>(*x, input, want_indices, storage_order != 0);
  });
}

// The window's elements inside the padded input [-pad_begin, in + pad_end): per dim, the taps start + k * dilation
// (k < kernel) that fall there, multiplied.
int64_t TapsInsidePadding(const WindowGeometry& g, const std::vector<int64_t>& start) {
  int64_t taps = 1;
  for (size_t d = 0; d < g.rank(); ++d) {
    int64_t inside = 0;
    for (int64_t k = 0; k < g.kernel[d]; ++k) {
      const int64_t at = start[d] + k * g.dilations[d];
      if (at >= -g.pad_begin[d] && at < g.in[d] + g.pad_end[d]) ++inside;
    }
    taps *= inside;
  }
  return taps;
}

template <typename T>
absl::StatusOr<Tensor> ApplyAveragePool(const Tensor& x, const PoolInput& input, bool count_include_pad) {
  const WindowGeometry& g = input.g;
  const ElementsAs<T> xv(x);
  const int64_t in_size = DimsProduct(g.in, 0, g.rank());
  const int64_t out_size = DimsProduct(g.out, 0, g.rank());
  ASSIGN_OR_RETURN(OutputAs<T> y, OutputAs<T>::Make(x.type(), input.out_dims));  // one element per window
  for (int64_t plane = 0; plane < input.planes; ++plane) {
    const T* in = xv.data() + plane * in_size;
    ForEachWindow(g, [&](int64_t p, const std::vector<int64_t>& start) {
      T sum = 0;
      int64_t inside = 0;
      ForEachInWindow(g, start, [&](int64_t offset, const std::vector<int64_t>&) {
        sum += in[offset];
        ++inside;
      });
      int64_t divisor = inside;
      if (count_include_pad) divisor = TapsInsidePadding(g, start);
      y[plane * out_size + p] = sum / static_cast<T>(divisor);
    });
  }
  return std::move(y).Finish();
}

absl::StatusOr<Outputs> RunAveragePool(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  int64_t count_include_pad = 0;
  if (ctx.OpsetAtLeast(kCountIncludePadOpset)) {
    ASSIGN_OR_RETURN(count_include_pad, IntAttributeOr(ctx.node, "count_include_pad", 0));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "count_include_pad", "does not have (added at opset 7)"));
  }
  ASSIGN_OR_RETURN(const PoolInput input, PoolWindow(ctx, *x, /*is_max=*/false));
  return Single(VisitFloating(x->type(), "AveragePool", [&](auto tag) {
    return ApplyAveragePool<decltype(tag)>(*x, input, count_include_pad != 0);
  }));
}

template <typename T>
absl::StatusOr<Tensor> ApplyGlobalPool(const Tensor& x, bool is_max) {
  const int64_t planes = x.dims()[0] * x.dims()[1];
  const int64_t size = DimsProduct(x.dims(), 2, x.dims().size());
  const std::vector<T> xv = ReadAs<T>(x);
  std::vector<T> y(static_cast<size_t>(planes));
  for (int64_t plane = 0; plane < planes; ++plane) {
    const T* in = xv.data() + plane * size;
    T acc = is_max ? std::numeric_limits<T>::lowest() : T{0};
    for (int64_t i = 0; i < size; ++i) {
      if (is_max) {
        if (in[i] > acc) acc = in[i];
      } else {
        acc += in[i];
      }
    }
    y[plane] = is_max ? acc : acc / static_cast<T>(size);
  }
  std::vector<int64_t> out_dims(x.dims().size(), 1);
  out_dims[0] = x.dims()[0];
  out_dims[1] = x.dims()[1];
  return WriteAs<T>(x.type(), out_dims, y);
}

absl::StatusOr<Outputs> RunGlobalPool(const KernelContext& ctx, bool is_max) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  if (x->rank() < 3)
    return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), "; it must be [N, C, spatial...]"));
  return Single(VisitFloating(x->type(), ctx.node.op_type(),
                              [&](auto tag) { return ApplyGlobalPool<decltype(tag)>(*x, is_max); }));
}

}  // namespace

void AddPoolKernels(KernelTable& table) {
  table["MaxPool"] = RunMaxPool;
  table["AveragePool"] = RunAveragePool;
  table["GlobalAveragePool"] = [](const KernelContext& ctx) { return RunGlobalPool(ctx, /*is_max=*/false); };
  table["GlobalMaxPool"] = [](const KernelContext& ctx) { return RunGlobalPool(ctx, /*is_max=*/true); };
}

}  // namespace onnx_legalize
