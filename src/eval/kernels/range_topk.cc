// Range and TopK.
//
// Range-11: output[i] = start + i * delta for i < max(ceil((limit - start) / delta), 0) (each element computed
// from i, as the text says, not by repeated addition). Range-27 adds float16 (and bfloat16, which the runner
// has no type for), computed in attribute stash_type's type, float (the default) or double, and rounded to
// float16 once at the end; stash_type has no effect on the other types.
// TopK: k is attribute `k` in TopK-1, input 1 (a one-element int64) from TopK-10; TopK-11 adds `largest`
// (default 1), `sorted` (default 1) and negative axes. Values and their int64 indices along `axis` (default
// -1), ordered greatest first (least first with largest=0), equal values by lower index; NaN counts as greater
// than every number. With sorted=0 the order is left open by the text; the runner gives the sorted one.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"
#include "eval/typed_elements.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

constexpr int64_t kRangeFloat16Opset = 27;
constexpr int64_t kTopKInputOpset = 10;
constexpr int64_t kTopKLargestOpset = 11;

template <typename T>
absl::StatusOr<std::vector<T>> RangeValues(T start, T limit, T delta) {
  if (delta == T{0}) return absl::InvalidArgumentError("delta is 0");
  const double steps =
      std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
  if (!(steps < static_cast<double>(kMaxValueElements) + 1)) {
    return absl::ResourceExhaustedError(StrCat("Range would make ", steps, " elements"));
  }
  const int64_t count = std::max<int64_t>(0, static_cast<int64_t>(steps));
  std::vector<T> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  return out;
}

template <typename T>
absl::StatusOr<Tensor> ApplyRange(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  ASSIGN_OR_RETURN(const std::vector<T> out,
                   RangeValues<T>(ReadAs<T>(start)[0], ReadAs<T>(limit)[0], ReadAs<T>(delta)[0]));
  return WriteAs<T>(start.type(), {static_cast<int64_t>(out.size())}, out);
}

// A double rounded to float16 as one rounding (to nearest, ties to even): rounded first to float by round-to-odd
// (an inexact result keeps its last bit set), which the second rounding to float16, 13 bits shorter, cannot
// mistake for a tie. Eigen::half(double) goes through float rounded to nearest: two roundings.
uint16_t DoubleToHalfBits(double value) {
  float narrowed = static_cast<float>(value);
  if (std::isfinite(value) && static_cast<double>(narrowed) != value) {
    if (std::fabs(static_cast<double>(narrowed)) > std::fabs(value)) narrowed = std::nextafter(narrowed, 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &narrowed, 4);
    bits |= 1;
    std::memcpy(&narrowed, &bits, 4);
  }
  return Eigen::numext::bit_cast<uint16_t>(Eigen::half(narrowed));
}

// Range-27 of float16 computed in double (stash_type 11).
absl::StatusOr<Tensor> ApplyFloat16RangeInDouble(const Tensor& start_t, const Tensor& limit_t, const Tensor& delta_t) {
  ASSIGN_OR_RETURN(
      const std::vector<double> values,
      RangeValues<double>(ReadAs<float>(start_t)[0], ReadAs<float>(limit_t)[0], ReadAs<float>(delta_t)[0]));
  std::string bytes(values.size() * 2, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t bits = DoubleToHalfBits(values[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);
  }
  return Tensor::FromBytes(onnx::TensorProto::FLOAT16, {static_cast<int64_t>(values.size())}, std::move(bytes));
}

// Range-27's stash_type for a float16 range: float or double. Refused before opset 27, which has neither it nor
// float16.
absl::StatusOr<int64_t> RangeStashType(const KernelContext& ctx, DataType type) {
  if (!ctx.OpsetAtLeast(kRangeFloat16Opset)) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "stash_type", "does not have (added at opset 27)"));
    if (type == onnx::TensorProto::FLOAT16) {
      return absl::InvalidArgumentError("Range takes float16 only from opset 27");
    }
    return int64_t{onnx::TensorProto::FLOAT};
  }
  ASSIGN_OR_RETURN(const int64_t stash, IntAttributeOr(ctx.node, "stash_type", onnx::TensorProto::FLOAT));
  if (type == onnx::TensorProto::FLOAT16 && stash != onnx::TensorProto::FLOAT && stash != onnx::TensorProto::DOUBLE) {
    return absl::InvalidArgumentError(StrCat("stash_type ", stash, " is neither float (1) nor double (11)"));
  }
  return stash;
}

absl::StatusOr<Outputs> RunRange(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 3));
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < 3; ++i) {
    ASSIGN_OR_RETURN(const Tensor* input, RequiredInput(ctx, i, "start, limit, delta"));
    if (input->element_count() != 1 || input->type() != ctx.Input(0)->type()) {
      return absl::InvalidArgumentError(
          StrCat("start, limit and delta must be scalars of one type, got ", Describe(*input)));
    }
    inputs.push_back(input);
  }
  ASSIGN_OR_RETURN(const int64_t stash, RangeStashType(ctx, inputs[0]->type()));
  if (inputs[0]->type() == onnx::TensorProto::FLOAT16 && stash == onnx::TensorProto::DOUBLE) {
    return Single(ApplyFloat16RangeInDouble(*inputs[0], *inputs[1], *inputs[2]));
  }
  return Single(VisitSignedNumeric(inputs[0]->type(), "Range", [&](auto tag) {
    return ApplyRange<decltype(tag)>(*inputs[0], *inputs[1], *inputs[2]);
  }));
}

// Whether a comes before b when the greatest go first: NaN greatest, then by value; ties by index.
template <typename T>
bool Greater(T a, T b) {
  if constexpr (!std::is_integral_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return !std::isnan(b);
  }
  return a > b;
}

template <typename T>
absl::StatusOr<Outputs> ApplyTopK(const Tensor& x, int64_t axis, int64_t k, bool largest) {
  const int64_t outer = DimsProduct(x.dims(), 0, static_cast<size_t>(axis));
  const int64_t size = x.dims()[axis];
  const int64_t inner = DimsProduct(x.dims(), static_cast<size_t>(axis) + 1, x.dims().size());
  if (k < 0 || k > size) return absl::InvalidArgumentError(StrCat("k ", k, " is outside [0, ", size, "]"));
  const std::vector<T> in = ReadAs<T>(x);
  std::vector<T> values(static_cast<size_t>(outer * k * inner));
  std::vector<int64_t> indices(values.size());
  std::vector<int64_t> order(static_cast<size_t>(size));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return in[(o * size + j) * inner + i]; };
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return largest ? Greater(at(a), at(b)) : Greater(at(b), at(a)); });
      for (int64_t j = 0; j < k; ++j) {
        values[(o * k + j) * inner + i] = at(order[j]);
        indices[(o * k + j) * inner + i] = order[j];
      }
    }
  }
  std::vector<int64_t> dims = x.dims();
  dims[axis] = k;
  ASSIGN_OR_RETURN(Tensor value_tensor, WriteAs<T>(x.type(), dims, values));
  ASSIGN_OR_RETURN(Tensor index_tensor, TensorOf<int64_t>(onnx::TensorProto::INT64, dims, indices));
  return Outputs{Share(std::move(value_tensor)), Share(std::move(index_tensor))};
}

absl::StatusOr<Outputs> RunTopK(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  int64_t k = 0;
  if (ctx.OpsetAtLeast(kTopKInputOpset)) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
    ASSIGN_OR_RETURN(const Tensor* k_tensor, RequiredInput(ctx, 1, "K"));
    ASSIGN_OR_RETURN(const std::vector<int64_t> values, k_tensor->ToInt64s("K"));
    if (values.size() != 1)
      return absl::InvalidArgumentError(StrCat("K must hold one value, got ", Describe(*k_tensor)));
    k = values[0];
  } else {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    ASSIGN_OR_RETURN(const std::optional<int64_t> attr, IntAttribute(ctx.node, "k"));
    if (!attr) return absl::InvalidArgumentError("attribute 'k' is missing");
    k = *attr;
  }
  int64_t largest = 1;
  if (ctx.OpsetAtLeast(kTopKLargestOpset)) {
    ASSIGN_OR_RETURN(largest, IntAttributeOr(ctx.node, "largest", 1));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "largest", "does not have (added at opset 11)"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "sorted", "does not have (added at opset 11)"));
  }
  ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttributeOr(ctx.node, "axis", -1));
  if (x->rank() == 0) return absl::InvalidArgumentError("X is a scalar");
  // TopK-1 and -10 define axis = -1 as their default: the last axis is meant, negative or not.
  const int64_t axis = axis_attr < 0 ? axis_attr + x->rank() : axis_attr;
  if (axis < 0 || axis >= x->rank() || (axis_attr < -1 && !ctx.OpsetAtLeast(kTopKLargestOpset))) {
    return absl::InvalidArgumentError(StrCat("axis ", axis_attr, " is out of range for ", Describe(*x)));
  }
  return VisitNumeric(x->type(), "TopK", [&](auto tag) { return ApplyTopK<decltype(tag)>(*x, axis, k, largest != 0); });
}

}  // namespace

void AddSequenceKernels(KernelTable& table) {
  table["Range"] = RunRange;
  table["TopK"] = RunTopK;
}

}  // namespace onnx_legalize
