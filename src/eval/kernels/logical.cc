// Comparisons and logic, producing bool: Equal, Less, Greater (any numeric type, and bool for Equal, and
// string for Equal-19: equal bytes), Not,
// And, Or (bool), and Where (picking between two tensors of any fixed-size type). The binary ones broadcast
// as their opset says (legacy `broadcast`/`axis` before opset 7: broadcast.h); Where broadcasts its three
// inputs numpy-style (Where-9). NaN compares unequal and unordered, as in IEEE 754.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/broadcast.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"
#include "eval/typed_elements.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

enum class Compare { kEqual, kLess, kGreater, kAnd, kOr };

constexpr int64_t kEqualStringOpset = 19;

template <typename T>
bool Apply(Compare op, T a, T b) {
  switch (op) {
    case Compare::kEqual: return a == b;
    case Compare::kLess: return a < b;
    case Compare::kGreater: return a > b;
    case Compare::kAnd: return a != T{0} && b != T{0};
    case Compare::kOr: return a != T{0} || b != T{0};
  }
  return false;
}

template <typename T>
absl::StatusOr<Tensor> ApplyCompare(Compare op, const Tensor& a, const Tensor& b, const BinaryShapes& shapes) {
  const std::vector<T> x = ReadAs<T>(a), y = ReadAs<T>(b);
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(shapes.out, "the output"));
  std::vector<uint8_t> out(static_cast<size_t>(count));
  const std::array<std::vector<int64_t>, 2> strides = {BroadcastStrides(shapes.a, shapes.out),
                                                       BroadcastStrides(shapes.b, shapes.out)};
  ForEachBroadcast(shapes.out, strides, [&](int64_t i, const std::array<int64_t, 2>& at) {
    out[i] = Apply(op, x[at[0]], y[at[1]]) ? 1 : 0;
  });
  return TensorOf<uint8_t>(TensorProto::BOOL, shapes.out, out);
}

// Equal-19 of two string tensors: an element is true where the strings hold the same bytes.
absl::StatusOr<Tensor> ApplyStringEqual(const Tensor& a, const Tensor& b, const BinaryShapes& shapes) {
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(shapes.out, "the output"));
  std::vector<uint8_t> out(static_cast<size_t>(count));
  const std::array<std::vector<int64_t>, 2> strides = {BroadcastStrides(shapes.a, shapes.out),
                                                       BroadcastStrides(shapes.b, shapes.out)};
  ForEachBroadcast(shapes.out, strides, [&](int64_t i, const std::array<int64_t, 2>& at) {
    out[i] = a.strings()[at[0]] == b.strings()[at[1]] ? 1 : 0;
  });
  return TensorOf<uint8_t>(TensorProto::BOOL, shapes.out, out);
}

absl::StatusOr<Outputs> RunCompare(const KernelContext& ctx, Compare op) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* a, RequiredInput(ctx, 0, "A"));
  ASSIGN_OR_RETURN(const Tensor* b, RequiredInput(ctx, 1, "B"));
  if (a->type() != b->type()) {
    return absl::InvalidArgumentError(StrCat("operands differ in type: ", Describe(*a), " and ", Describe(*b)));
  }
  const bool logical = op == Compare::kAnd || op == Compare::kOr;
  if (logical != (a->type() == TensorProto::BOOL) && !(op == Compare::kEqual && a->type() == TensorProto::BOOL)) {
    return absl::InvalidArgumentError(StrCat(ctx.node.op_type(), " does not take ", Describe(*a)));
  }
  ASSIGN_OR_RETURN(const BinaryShapes shapes, BinaryOperandShapes(ctx, a->dims(), b->dims()));
  if (a->type() == TensorProto::BOOL) return Single(ApplyCompare<uint8_t>(op, *a, *b, shapes));
  if (a->is_string() && op == Compare::kEqual && ctx.OpsetAtLeast(kEqualStringOpset)) {
    return Single(ApplyStringEqual(*a, *b, shapes));
  }
  return Single(VisitNumeric(a->type(), ctx.node.op_type(),
                             [&](auto tag) { return ApplyCompare<decltype(tag)>(op, *a, *b, shapes); }));
}

absl::StatusOr<Outputs> RunNot(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  if (x->type() != TensorProto::BOOL) return absl::InvalidArgumentError(StrCat("Not takes bool, got ", Describe(*x)));
  std::vector<uint8_t> values = ElementsOf<uint8_t>(*x);
  for (uint8_t& value : values) value = value == 0 ? 1 : 0;
  return Single(TensorOf<uint8_t>(TensorProto::BOOL, x->dims(), values));
}

absl::StatusOr<Outputs> RunWhere(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 3));
  ASSIGN_OR_RETURN(const Tensor* condition, RequiredInput(ctx, 0, "condition"));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 1, "X"));
  ASSIGN_OR_RETURN(const Tensor* y, RequiredInput(ctx, 2, "Y"));
  if (condition->type() != TensorProto::BOOL || x->type() != y->type() || x->is_string()) {
    return absl::InvalidArgumentError(StrCat("Where takes a bool condition and X, Y of one fixed-size type; got ",
                                             Describe(*condition), ", ", Describe(*x), ", ", Describe(*y)));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> out_dims, BroadcastDims({condition->dims(), x->dims(), y->dims()}));
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(out_dims, "Where's output"));
  const auto size = static_cast<size_t>(ElementSize(x->type()));
  std::string bytes(static_cast<size_t>(count) * size, '\0');
  const char* c = condition->bytes().data();
  const char* xs = x->bytes().data();
  const char* ys = y->bytes().data();
  const std::array<std::vector<int64_t>, 3> strides = {BroadcastStrides(condition->dims(), out_dims),
                                                       BroadcastStrides(x->dims(), out_dims),
                                                       BroadcastStrides(y->dims(), out_dims)};
  ForEachBroadcast(out_dims, strides, [&](int64_t i, const std::array<int64_t, 3>& at) {
    const char* from = c[at[0]] != 0 ? xs + at[1] * size : ys + at[2] * size;
    std::memcpy(bytes.data() + i * size, from, size);
  });
  return Single(Tensor::FromBytes(x->type(), out_dims, std::move(bytes)));
}

}  // namespace

void AddLogicalKernels(KernelTable& table) {
  table["Equal"] = [](const KernelContext& ctx) { return RunCompare(ctx, Compare::kEqual); };
  table["Less"] = [](const KernelContext& ctx) { return RunCompare(ctx, Compare::kLess); };
  table["Greater"] = [](const KernelContext& ctx) { return RunCompare(ctx, Compare::kGreater); };
  table["And"] = [](const KernelContext& ctx) { return RunCompare(ctx, Compare::kAnd); };
  table["Or"] = [](const KernelContext& ctx) { return RunCompare(ctx, Compare::kOr); };
  table["Not"] = RunNot;
  table["Where"] = RunWhere;
}

}  // namespace onnx_legalize
