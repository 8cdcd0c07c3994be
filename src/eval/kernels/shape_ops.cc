// Ops that read or change only a tensor's dims: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, and Expand
// (which repeats elements to broadcast dims).
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/broadcast.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/registry.h"
#include "eval/typed_elements.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

absl::StatusOr<Outputs> RunShape(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  const int64_t rank = x->rank();
  int64_t start = 0, end = rank;
  if (ctx.OpsetAtLeast(15)) {
    // Shape-15: start/end select a range of dims; negative values count from the back, then clamp.
    ASSIGN_OR_RETURN(const std::optional<int64_t> start_attr, IntAttribute(ctx.node, "start"));
    ASSIGN_OR_RETURN(const std::optional<int64_t> end_attr, IntAttribute(ctx.node, "end"));
    auto clamp = [rank](int64_t value) {
      if (value < 0) value += rank;
      return std::min(std::max<int64_t>(value, 0), rank);
    };
    if (start_attr) start = clamp(*start_attr);
    if (end_attr) end = clamp(*end_attr);
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "start", "does not have (Shape-15 added it)"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "end", "does not have (Shape-15 added it)"));
  }
  std::vector<int64_t> dims;
  if (start < end) dims.assign(x->dims().begin() + start, x->dims().begin() + end);
  return Outputs{Share(Tensor::FromInt64s(dims))};
}

// Size-1: the element count, as an int64 scalar.
absl::StatusOr<Outputs> RunSize(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  return Single(TensorOf<int64_t>(TensorProto::INT64, {}, {x->element_count()}));
}

// The dims Reshape makes of `x` from `shape`: 0 copies the input's dim at that index (unless allowzero), one
// -1 takes what is left.
absl::StatusOr<std::vector<int64_t>> ReshapedDims(const Tensor& x, const std::vector<int64_t>& shape, bool allow_zero) {
  std::vector<int64_t> out_dims(shape.size());
  std::optional<size_t> inferred;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred) return absl::InvalidArgumentError(StrCat("shape ", DimsString(shape), " has two -1"));
      inferred = i;
      out_dims[i] = 1;
    } else if (shape[i] == 0 && !allow_zero) {
      if (static_cast<int64_t>(i) >= x.rank()) {
        return absl::InvalidArgumentError(
            StrCat("shape ", DimsString(shape), " copies dim ", i, " of ", Describe(x), ", which has none"));
      }
      out_dims[i] = x.dims()[i];
    } else if (shape[i] < 0) {
      return absl::InvalidArgumentError(StrCat("shape ", DimsString(shape), " has dim ", shape[i]));
    } else {
      out_dims[i] = shape[i];
    }
  }
  ASSIGN_OR_RETURN(const int64_t known, CheckedElementCount(out_dims, "Reshape output"));
  if (inferred) {
    if (known == 0 || x.element_count() % known != 0) {
      return absl::InvalidArgumentError(
          StrCat("cannot infer the -1 in shape ", DimsString(shape), " for ", Describe(x)));
    }
    out_dims[*inferred] = x.element_count() / known;
  } else if (known != x.element_count()) {
    return absl::InvalidArgumentError(StrCat("shape ", DimsString(shape), " does not fit ", Describe(x)));
  }
  return out_dims;
}

// Reshape-1 takes the shape as an attribute; Reshape-5 as input 1; Reshape-14 adds allowzero.
absl::StatusOr<Outputs> RunReshape(const KernelContext& ctx) {
  std::vector<int64_t> shape;
  if (!ctx.OpsetAtLeast(5)) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> attr, IntsAttribute(ctx.node, "shape"));
    if (!attr) return absl::InvalidArgumentError("Reshape-1 needs attribute 'shape'");
    shape = *attr;
  } else {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
    RETURN_IF_ERROR(RejectAttribute(ctx, "shape", "takes as input 1 instead"));
    ASSIGN_OR_RETURN(const Tensor* shape_tensor, RequiredInput(ctx, 1, "shape"));
    if (shape_tensor->type() != TensorProto::INT64 || shape_tensor->rank() != 1) {
      return absl::InvalidArgumentError(StrCat("shape must be a 1-D int64 tensor, got ", Describe(*shape_tensor)));
    }
    ASSIGN_OR_RETURN(shape, shape_tensor->ToInt64s("shape"));
  }
  bool allow_zero = false;
  if (ctx.OpsetAtLeast(14)) {
    ASSIGN_OR_RETURN(allow_zero, IntAttributeOr(ctx.node, "allowzero", 0));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "allowzero", "does not have (Reshape-14 added it)"));
  }
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, ReshapedDims(*x, shape, allow_zero));
  return Single(WithDims(*x, std::move(out_dims)));
}

constexpr int64_t kFlattenNegativeAxisOpset = 11;

// Flatten: [d0 * ... * d(axis-1), d(axis) * ... * dn]; axis defaults to 1, may equal the rank (Flatten-1's
// [0, R]), and is negative from Flatten-11. Unlike the other ops' negative axes before 11 (kernel_support.h),
// Flatten's is refused: onnx's shape inference of Flatten-1 and -9 rejects it, and so does ONNX Runtime.
absl::StatusOr<Outputs> RunFlatten(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  ASSIGN_OR_RETURN(int64_t axis, IntAttributeOr(ctx.node, "axis", 1));
  const int64_t rank = x->rank();
  const int64_t lowest = !ctx.OpsetAtLeast(kFlattenNegativeAxisOpset) ? 0 : -rank;
  if (axis < lowest || axis > rank) {
    return absl::InvalidArgumentError(
        StrCat("axis ", axis, " is outside [", lowest, ", ", rank, "] for ", Describe(*x)));
  }
  if (axis < 0) axis += rank;
  const int64_t outer = DimsProduct(x->dims(), 0, static_cast<size_t>(axis));
  const int64_t inner = DimsProduct(x->dims(), static_cast<size_t>(axis), x->dims().size());
  return Single(WithDims(*x, {outer, inner}));
}

// The axes of Unsqueeze/Squeeze: an attribute before opset 13, the optional second input from 13.
absl::StatusOr<std::optional<std::vector<int64_t>>> SqueezeAxes(const KernelContext& ctx, bool required) {
  if (ctx.OpsetAtLeast(13)) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "axes", "takes as input 1 instead"));
    RETURN_IF_ERROR(ExpectInputCount(ctx, required ? 2 : 1, 2));
    const Tensor* axes = ctx.Input(1);
    if (axes == nullptr) {
      if (required) return absl::InvalidArgumentError("input 1 (axes) is missing");
      return std::nullopt;
    }
    if (axes->type() != TensorProto::INT64 || axes->rank() != 1) {
      return absl::InvalidArgumentError(StrCat("axes must be a 1-D int64 tensor, got ", Describe(*axes)));
    }
    return axes->ToInt64s("axes");
  }
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes, IntsAttribute(ctx.node, "axes"));
  if (!axes && required) return absl::InvalidArgumentError("attribute 'axes' is missing");
  return axes;
}

absl::StatusOr<Outputs> RunUnsqueeze(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> axes, SqueezeAxes(ctx, /*required=*/true));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  const int64_t out_rank = x->rank() + static_cast<int64_t>(axes->size());
  ASSIGN_OR_RETURN(const std::vector<int64_t> normalized, NormalizeAxes(*axes, out_rank, "axis"));
  std::vector<int64_t> out_dims(out_rank, -1);
  for (const int64_t axis : normalized) out_dims[axis] = 1;
  auto next = x->dims().begin();
  for (int64_t& dim : out_dims) {
    if (dim == -1) dim = *next++;
  }
  return Single(WithDims(*x, std::move(out_dims)));
}

absl::StatusOr<Outputs> RunSqueeze(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> axes, SqueezeAxes(ctx, /*required=*/false));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  std::vector<bool> drop(x->rank(), false);
  if (axes) {
    ASSIGN_OR_RETURN(const std::vector<int64_t> normalized, NormalizeAxes(*axes, x->rank(), "axis"));
    for (const int64_t axis : normalized) {
      if (x->dims()[axis] != 1) {
        return absl::InvalidArgumentError(StrCat("axis ", axis, " of ", Describe(*x), " is not 1"));
      }
      drop[axis] = true;
    }
  } else {
    // Without axes, every dim of size 1 goes.
    for (int64_t d = 0; d < x->rank(); ++d) drop[d] = x->dims()[d] == 1;
  }
  std::vector<int64_t> out_dims;
  for (int64_t d = 0; d < x->rank(); ++d) {
    if (!drop[d]) out_dims.push_back(x->dims()[d]);
  }
  return Single(WithDims(*x, std::move(out_dims)));
}

// Repeats each element of `x` (any fixed-size type) to fill `out_dims`, which x's dims broadcast to.
absl::StatusOr<Tensor> BroadcastCopy(const Tensor& x, const std::vector<int64_t>& out_dims) {
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(out_dims, "the output"));
  const auto size = static_cast<size_t>(ElementSize(x.type()));
  std::string bytes(static_cast<size_t>(count) * size, '\0');
  const char* in = x.bytes().data();
  const std::array<std::vector<int64_t>, 1> strides = {BroadcastStrides(x.dims(), out_dims)};
  ForEachBroadcast(out_dims, strides, [&](int64_t i, const std::array<int64_t, 1>& at) {
    std::memcpy(bytes.data() + i * size, in + at[0] * size, size);
  });
  return Tensor::FromBytes(x.type(), out_dims, std::move(bytes));
}

// Expand-8: broadcasts the input and `shape` together (numpy's rule, so the output may be larger than shape).
absl::StatusOr<Outputs> RunExpand(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  ASSIGN_OR_RETURN(const Tensor* shape_tensor, RequiredInput(ctx, 1, "shape"));
  if (shape_tensor->type() != TensorProto::INT64 || shape_tensor->rank() != 1) {
    return absl::InvalidArgumentError(StrCat("shape must be a 1-D int64 tensor, got ", Describe(*shape_tensor)));
  }
  if (x->is_string()) return absl::UnimplementedError("Expand of strings");
  ASSIGN_OR_RETURN(const std::vector<int64_t> shape, shape_tensor->ToInt64s("shape"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> out_dims, BroadcastDims({x->dims(), shape}));
  return Single(BroadcastCopy(*x, out_dims));
}

}  // namespace

void AddShapeKernels(KernelTable& table) {
  table["Shape"] = RunShape;
  table["Size"] = RunSize;
  table["Reshape"] = RunReshape;
  table["Flatten"] = RunFlatten;
  table["Unsqueeze"] = RunUnsqueeze;
  table["Squeeze"] = RunSqueeze;
  table["Expand"] = RunExpand;
}

}  // namespace onnx_legalize
