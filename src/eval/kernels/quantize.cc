// QuantizeLinear and DequantizeLinear (opsets 10-28) on the types the runner holds: float (and float16 for
// QuantizeLinear's x) on one side, the 8- and 16-bit integers (and int32 for DequantizeLinear's x) on the other.
// Models of every era hold them: nGraph's and TensorFlow-Lite conversions' DequantizeLinear-10 of int8 weights,
// quantized classifiers of opset 13 with a scale per channel, and blocked quantization from opset 21.
//
// A scale (and its zero point, of the same shape) is per tensor (one element), per axis (opset 13: a 1-D tensor
// of x's dim at `axis`) or blocked (opset 21: x's dims but ceil(dim / block_size) at `axis`).
//
// Each element is computed as ONNX Runtime computes it, so the runner agrees with it bit for bit:
// - QuantizeLinear: x / scale divided in float, rounded to the nearest integer (ties to even), the zero point
//   added, and saturated to the output type. NaN has no integer: the op text leaves it undefined (ONNX Runtime's
//   vector and scalar paths disagree), so the runner refuses it, as Cast does.
// - DequantizeLinear: (x - zero point) subtracted as integers, converted to float and multiplied by the scale:
//   one rounding.
// Scales of float16, bfloat16 or float8e8m0 (opset 19 and later), and the float8, float4, int4 and int2 types, are
// refused: the runner holds none of them, or (float16 scales) onnx and ONNX Runtime round the division differently.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

// Where each element of x finds its scale: x's flat index i is (outer, a, inner) around `axis`. Per tensor, every
// index maps to 0; per axis, to a (the scale is 1-D); blocked, to (outer, a / block, inner) in a scale of x's dims
// but scale_dim at `axis`.
struct ScaleLayout {
  enum class Kind { kPerTensor, kPerAxis, kBlocked };
  Kind kind = Kind::kPerTensor;
  int64_t axis_dim = 1;
  int64_t inner = 1;
  int64_t block = 1;
  int64_t scale_dim = 1;

  int64_t ScaleIndex(int64_t i) const {
    if (kind == Kind::kPerTensor) return 0;
    const int64_t inner_index = i % inner;
    const int64_t a = (i / inner) % axis_dim;
    if (kind == Kind::kPerAxis) return a;
    const int64_t outer = i / (inner * axis_dim);
    return (outer * scale_dim + a / block) * inner + inner_index;
  }
};

// The layout of `scale` against x, checked as the op at ctx.opset() defines it; a zero point, when given, has
// the scale's dims.
absl::StatusOr<ScaleLayout> LayoutOf(const KernelContext& ctx, const Tensor& x, const Tensor& scale,
                                     const Tensor* zero_point, absl::string_view scale_name) {
  if (!ctx.OpsetAtLeast(13)) RETURN_IF_ERROR(RejectAttribute(ctx, "axis", "has no axis before opset 13"));
  if (!ctx.OpsetAtLeast(21)) RETURN_IF_ERROR(RejectAttribute(ctx, "block_size", "has no blocks before opset 21"));
  ASSIGN_OR_RETURN(const int64_t block_size, IntAttributeOr(ctx.node, "block_size", 0));
  if (block_size < 0) return absl::InvalidArgumentError(StrCat("block_size is ", block_size, ", not positive"));
  if (zero_point != nullptr && zero_point->dims() != scale.dims()) {
    return absl::InvalidArgumentError(StrCat("the zero point is ", Describe(*zero_point), " and ", scale_name, " is ",
                                             Describe(scale), ": their dims differ"));
  }
  ScaleLayout layout;
  if (block_size == 0 && scale.element_count() == 1 && scale.rank() <= 1) return layout;
  if (!ctx.OpsetAtLeast(13)) {
    return absl::InvalidArgumentError(StrCat(scale_name, " is ", Describe(scale),
                                             ", not a scalar (one per tensor "
                                             "before opset 13)"));
  }
  ASSIGN_OR_RETURN(const int64_t axis_attribute, IntAttributeOr(ctx.node, "axis", 1));
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_attribute, x.rank(), "axis"));
  layout.axis_dim = x.dims()[static_cast<size_t>(axis)];
  layout.inner = DimsProduct(x.dims(), static_cast<size_t>(axis) + 1, x.dims().size());
  if (block_size == 0) {
    if (scale.rank() != 1 || scale.dims()[0] != layout.axis_dim) {
      return absl::InvalidArgumentError(StrCat(scale_name, " is ", Describe(scale), " for x ", Describe(x),
                                               ": per axis it must be 1-D of x's dim at axis ", axis));
    }
    layout.kind = ScaleLayout::Kind::kPerAxis;
    layout.scale_dim = layout.axis_dim;
    return layout;
  }
  std::vector<int64_t> blocked_dims = x.dims();
  blocked_dims[static_cast<size_t>(axis)] = (layout.axis_dim + block_size - 1) / block_size;
  if (scale.dims() != blocked_dims) {
    return absl::InvalidArgumentError(StrCat(scale_name, " is ", Describe(scale), " for x ", Describe(x),
                                             " and block_size ", block_size, ": blocked it must be ",
                                             DimsString(blocked_dims)));
  }
  layout.kind = ScaleLayout::Kind::kBlocked;
  layout.block = block_size;
  layout.scale_dim = blocked_dims[static_cast<size_t>(axis)];
  return layout;
}

absl::StatusOr<std::vector<float>> FloatScales(const Tensor& scale, absl::string_view scale_name) {
  if (scale.type() != TensorProto::FLOAT) return UnsupportedType(scale.type(), scale_name, "float");
  std::vector<float> scales = ReadAs<float>(scale);
  return scales;
}

// Whether the integer type is one a quantized value may have at the node's opset: the 16-bit ones came at 21.
bool IsQuantizedType(DataType type, const KernelContext& ctx) {
  switch (type) {
    case TensorProto::INT8:
    case TensorProto::UINT8: return true;
    case TensorProto::INT16:
    case TensorProto::UINT16: return ctx.OpsetAtLeast(21);
    default: return false;
  }
}

// The zero points as integers, one per scale (0 when none is given).
template <typename Q>
std::vector<int64_t> ZeroPoints(const Tensor* zero_point, size_t count) {
  std::vector<int64_t> zeros(count, 0);
  if (zero_point == nullptr) return zeros;
  const ElementsAs<Q> given(*zero_point);
  // int8 is a number here, not a character: widening it sign-extends.
  // NOLINTNEXTLINE(bugprone-signed-char-misuse)
  for (size_t s = 0; s < count; ++s) zeros[s] = static_cast<int64_t>(given[s]);
  return zeros;
}

template <typename Q>
absl::StatusOr<Tensor> Quantize(const Tensor& x, const std::vector<float>& scales, const std::vector<int64_t>& zeros,
                                const ScaleLayout& layout, DataType type) {
  const ElementsAs<float> in(x);
  ASSIGN_OR_RETURN(OutputAs<Q> out, OutputAs<Q>::Make(type, x.dims()));
  constexpr auto kLowest = static_cast<float>(std::numeric_limits<Q>::lowest());
  constexpr auto kHighest = static_cast<float>(std::numeric_limits<Q>::max());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto s = static_cast<size_t>(layout.ScaleIndex(static_cast<int64_t>(i)));
    // Integers of magnitude below 2^24 are exact in float, so the zero point adds without rounding.
    const float value = std::nearbyint(in[i] / scales[s]) + static_cast<float>(zeros[s]);
    if (std::isnan(value)) {
      return absl::InvalidArgumentError(
          StrCat("x[", i, "] / scale is NaN (x is ", in[i], ", scale ", scales[s], "): its quantization is undefined"));
    }
    out[i] = static_cast<Q>(std::fmin(std::fmax(value, kLowest), kHighest));
  }
  return std::move(out).Finish();
}

// The output type: the zero point's; else output_dtype (opset 21); else uint8.
absl::StatusOr<DataType> QuantizedType(const KernelContext& ctx, const Tensor* zero_point) {
  if (!ctx.OpsetAtLeast(21))
    RETURN_IF_ERROR(RejectAttribute(ctx, "output_dtype", "names no output type before opset 21"));
  ASSIGN_OR_RETURN(const int64_t output_dtype, IntAttributeOr(ctx.node, "output_dtype", 0));
  const auto named = static_cast<DataType>(output_dtype);
  if (zero_point != nullptr && output_dtype != 0 && named != zero_point->type()) {
    return absl::InvalidArgumentError(StrCat("output_dtype is ", DataTypeName(named), " and the zero point is ",
                                             Describe(*zero_point), ": they must agree"));
  }
  const DataType type = zero_point != nullptr ? zero_point->type()
                        : output_dtype != 0   ? named
                                              : static_cast<DataType>(TensorProto::UINT8);
  if (!IsQuantizedType(type, ctx)) {
    return UnsupportedType(type, "the quantized output",
                           ctx.OpsetAtLeast(21) ? "int8, uint8, int16, uint16" : "int8, uint8");
  }
  return type;
}

absl::StatusOr<Outputs> RunQuantizeLinear(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 3));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "x"));
  ASSIGN_OR_RETURN(const Tensor* scale, RequiredInput(ctx, 1, "y_scale"));
  const Tensor* zero_point = ctx.Input(2);
  if (x->type() != TensorProto::FLOAT && !(x->type() == TensorProto::FLOAT16 && ctx.OpsetAtLeast(19))) {
    return UnsupportedType(x->type(), "x", ctx.OpsetAtLeast(19) ? "float, float16" : "float");
  }
  if (ctx.OpsetAtLeast(23)) {
    ASSIGN_OR_RETURN(const int64_t precision, IntAttributeOr(ctx.node, "precision", 0));
    if (precision != 0 && precision != TensorProto::FLOAT) {
      return UnsupportedType(static_cast<DataType>(precision), "the division's precision", "float");
    }
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "precision", "divides at the scale's precision before opset 23"));
  }
  ASSIGN_OR_RETURN(const ScaleLayout layout, LayoutOf(ctx, *x, *scale, zero_point, "y_scale"));
  ASSIGN_OR_RETURN(const std::vector<float> scales, FloatScales(*scale, "y_scale"));
  ASSIGN_OR_RETURN(const DataType type, QuantizedType(ctx, zero_point));
  return Single(VisitNumeric(type, "the quantized output", [&](auto q) -> absl::StatusOr<Tensor> {
    using Q = decltype(q);
    if constexpr (std::is_integral_v<Q> && sizeof(Q) <= 2) {
      return Quantize<Q>(*x, scales, ZeroPoints<Q>(zero_point, scales.size()), layout, type);
    } else {
      return UnsupportedType(type, "the quantized output", "int8, uint8, int16, uint16");
    }
  }));
}

template <typename Q>
absl::StatusOr<Tensor> Dequantize(const Tensor& x, const std::vector<float>& scales, const Tensor* zero_point,
                                  const ScaleLayout& layout) {
  const ElementsAs<Q> in(x);
  const std::vector<int64_t> zeros = ZeroPoints<Q>(zero_point, scales.size());
  ASSIGN_OR_RETURN(OutputAs<float> out, OutputAs<float>::Make(TensorProto::FLOAT, x.dims()));
  for (size_t i = 0; i < in.size(); ++i) {
    const auto s = static_cast<size_t>(layout.ScaleIndex(static_cast<int64_t>(i)));
    out[i] = static_cast<float>(static_cast<int64_t>(in[i]) - zeros[s]) * scales[s];
  }
  return std::move(out).Finish();
}

absl::StatusOr<Outputs> RunDequantizeLinear(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 3));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "x"));
  ASSIGN_OR_RETURN(const Tensor* scale, RequiredInput(ctx, 1, "x_scale"));
  const Tensor* zero_point = ctx.Input(2);
  if (!IsQuantizedType(x->type(), ctx) && x->type() != TensorProto::INT32) {
    return UnsupportedType(x->type(), "x",
                           ctx.OpsetAtLeast(21) ? "int8, uint8, int16, uint16, int32" : "int8, uint8, int32");
  }
  if (zero_point != nullptr && zero_point->type() != x->type()) {
    return absl::InvalidArgumentError(
        StrCat("x is ", Describe(*x), " and its zero point ", Describe(*zero_point), ": their types differ"));
  }
  if (!ctx.OpsetAtLeast(23)) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "output_dtype", "gives the scale's type before opset 23"));
  } else {
    ASSIGN_OR_RETURN(const int64_t output_dtype, IntAttributeOr(ctx.node, "output_dtype", 0));
    if (output_dtype != 0 && output_dtype != TensorProto::FLOAT) {
      return UnsupportedType(static_cast<DataType>(output_dtype), "output_dtype", "float");
    }
  }
  ASSIGN_OR_RETURN(const ScaleLayout layout, LayoutOf(ctx, *x, *scale, zero_point, "x_scale"));
  ASSIGN_OR_RETURN(const std::vector<float> scales, FloatScales(*scale, "x_scale"));
  if (x->type() == TensorProto::INT32 && zero_point != nullptr) {
    // The op text requires a zero point of 0 for int32, and onnx (float) and ONNX Runtime (integer) subtract
    // any other differently.
    for (const int32_t zero : ElementsAs<int32_t>(*zero_point)) {
      if (zero != 0) return absl::InvalidArgumentError(StrCat("x is int32 and its zero point holds ", zero, ", not 0"));
    }
  }
  return Single(VisitNumeric(x->type(), "x", [&](auto q) -> absl::StatusOr<Tensor> {
    using Q = decltype(q);
    if constexpr (std::is_integral_v<Q> && sizeof(Q) <= 4) {
      return Dequantize<Q>(*x, scales, zero_point, layout);
    } else {
      return UnsupportedType(x->type(), "x", "int8, uint8, int16, uint16, int32");
    }
  }));
}

}  // namespace

void AddQuantizeKernels(KernelTable& table) {
  table["QuantizeLinear"] = RunQuantizeLinear;
  table["DequantizeLinear"] = RunDequantizeLinear;
}

}  // namespace onnx_legalize
