// Arithmetic: Add, Sub, Mul, Div, Pow (binary, broadcasting as their opset says: broadcast.h), Sum, Max, Min,
// Mean (variadic: equal shapes before opset 8, numpy broadcasting from Sum-8), and the unary math ops Sqrt, Exp,
// Log, Erf, Abs, Neg, Sign, Reciprocal, Floor, Ceil, Round.
//
// Each output element is computed from its operands alone; the variadic ops fold their inputs left to right
// ((x0 + x1) + x2 ...), Mean dividing that sum by the input count. float16 is computed in float. Integers
// wrap around; integer division truncates toward zero, and dividing by zero is an error. Pow-12's integer base:
// exact to an integer power, truncated toward zero from double to a float one; a power with no value of the
// base's type (a negative integer power, NaN, past its range) is an error.
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/broadcast.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

// Sum/Max/Min/Mean broadcast from opset 8 (Sum-8); before, every input has the same shape (Sum-6).
constexpr int64_t kVariadicBroadcastOpset = 8;
// Pow-12 lets the exponent's type differ from the base's, and the base be int32 or int64.
constexpr int64_t kPowMixedTypesOpset = 12;
constexpr int64_t kPowIntegerBaseOpset = 12;

template <typename T>
T Divide(T a, T b, bool& by_zero) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) {
      by_zero = true;
      return T{0};
    }
    if constexpr (std::is_signed_v<T>) {
      if (a == std::numeric_limits<T>::min() && b == T{-1}) return a;  // wraps, as negation does
    }
    return static_cast<T>(a / b);
  } else {
    return a / b;
  }
}

enum class BinaryOp { kAdd, kSub, kMul, kDiv };

template <typename T>
absl::StatusOr<Tensor> ApplyBinary(BinaryOp op, const Tensor& a, const Tensor& b, const BinaryShapes& shapes) {
  const ElementsAs<T> x(a), y(b);
  RETURN_IF_ERROR(CheckedOutputCount(shapes.out, "the output").status());
  ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(a.type(), shapes.out));  // one write per element
  bool by_zero = false;
  const std::array<std::vector<int64_t>, 2> strides = {BroadcastStrides(shapes.a, shapes.out),
                                                       BroadcastStrides(shapes.b, shapes.out)};
  ForEachBroadcast(shapes.out, strides, [&](int64_t i, const std::array<int64_t, 2>& at) {
    const T l = x[at[0]], r = y[at[1]];
    switch (op) {
      case BinaryOp::kAdd: out[i] = WrappingAdd(l, r); break;
      case BinaryOp::kSub: out[i] = WrappingSub(l, r); break;
      case BinaryOp::kMul: out[i] = WrappingMul(l, r); break;
      case BinaryOp::kDiv: out[i] = Divide(l, r, by_zero); break;
    }
  });
  if (by_zero) return absl::InvalidArgumentError("integer division by zero");
  return std::move(out).Finish();
}

absl::StatusOr<Outputs> RunBinary(const KernelContext& ctx, BinaryOp op) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* a, RequiredInput(ctx, 0, "A"));
  ASSIGN_OR_RETURN(const Tensor* b, RequiredInput(ctx, 1, "B"));
  if (a->type() != b->type()) {
    return absl::InvalidArgumentError(StrCat("operands differ in type: ", Describe(*a), " and ", Describe(*b)));
  }
  ASSIGN_OR_RETURN(const BinaryShapes shapes, BinaryOperandShapes(ctx, a->dims(), b->dims()));
  return Single(VisitNumeric(a->type(), ctx.node.op_type(),
                             [&](auto tag) { return ApplyBinary<decltype(tag)>(op, *a, *b, shapes); }));
}

// An integer base (Pow-12) to an integer power: exact, by squaring, wrapping around as the integer ops do (and
// as numpy's power, onnx's reference, does). A negative power has no integer value: false.
template <typename T, typename E>
bool IntegerToIntegerPower(T base, E exponent, T& result) {
  if constexpr (std::is_signed_v<E>) {
    if (exponent < 0) return false;
  }
  result = T{1};
  // Not negative here, so its unsigned form is its value (and an int8 is read as a number, not a character).
  for (auto bits = static_cast<uint64_t>(static_cast<std::make_unsigned_t<E>>(exponent)); bits != 0; bits >>= 1) {
    if ((bits & 1) != 0) result = WrappingMul(result, base);
    base = WrappingMul(base, base);
  }
  return true;
}

// An integer base to a float power: computed in double and truncated toward zero, as numpy converts the
// float result back to the base's type. A NaN or a value past T's range has no integer value: false.
template <typename T, typename E>
bool IntegerToFloatPower(T base, E exponent, T& result) {
  const double real = std::pow(static_cast<double>(base), static_cast<double>(exponent));
  // T's limits are -2^k and 2^k - 1, so low and high (powers of two) are exact in double.
  const auto low = static_cast<double>(std::numeric_limits<T>::min());
  const auto high = static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
  if (!(std::trunc(real) >= low && real < high)) return false;  // false for NaN too
  result = static_cast<T>(real);
  return true;
}

// Pow: base ** exponent. A float base computes in its computing type (std::pow), the exponent converted to it
// first; an integer base as IntegerToIntegerPower or IntegerToFloatPower say.
template <typename T, typename E>
absl::StatusOr<Tensor> ApplyPow(const Tensor& base, const Tensor& exponent, const BinaryShapes& shapes) {
  const ElementsAs<T> x(base);
  const ElementsAs<E> y(exponent);
  RETURN_IF_ERROR(CheckedOutputCount(shapes.out, "the output").status());
  ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(base.type(), shapes.out));  // one write per element
  const std::array<std::vector<int64_t>, 2> strides = {BroadcastStrides(shapes.a, shapes.out),
                                                       BroadcastStrides(shapes.b, shapes.out)};
  std::optional<std::array<int64_t, 2>> no_integer_value;  // the operands' indices of the first such element
  ForEachBroadcast(shapes.out, strides, [&](int64_t i, const std::array<int64_t, 2>& at) {
    if constexpr (std::is_floating_point_v<T>) {
      out[i] = static_cast<T>(std::pow(x[at[0]], static_cast<T>(y[at[1]])));
    } else {
      T power{0};
      bool has_value = false;
      if constexpr (std::is_integral_v<E>) {
        has_value = IntegerToIntegerPower(x[at[0]], y[at[1]], power);
      } else {
        has_value = IntegerToFloatPower(x[at[0]], y[at[1]], power);
      }
      if (!has_value && !no_integer_value) no_integer_value = at;
      out[i] = power;
    }
  });
  if (no_integer_value) {
    // Unary + prints an int8 or uint8 exponent as a number, not a character.
    return absl::InvalidArgumentError(StrCat("base ", x[(*no_integer_value)[0]], " to the power ",
                                             +y[(*no_integer_value)[1]], " has no value of the base's type ",
                                             DataTypeName(base.type()), "; ONNX leaves it undefined"));
  }
  return std::move(out).Finish();
}

// Calls fn(T{}) with the computing type of a base Pow takes: float16, float, double, int32, int64.
template <typename Fn>
auto VisitPowBase(DataType type, Fn&& fn) -> decltype(fn(float{})) {
  if (type == TensorProto::INT32) return fn(int32_t{});
  if (type == TensorProto::INT64) return fn(int64_t{});
  if (IsFloating(type)) return VisitFloating(type, "Pow's base", std::forward<Fn>(fn));
  return UnsupportedType(type, "Pow's base", "float16, float, double, int32, int64");
}

absl::StatusOr<Outputs> RunPow(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const Tensor* y, RequiredInput(ctx, 1, "Y"));
  if (x->type() != y->type() && !ctx.OpsetAtLeast(kPowMixedTypesOpset)) {
    return absl::InvalidArgumentError(
        StrCat("X is ", Describe(*x), " and Y ", Describe(*y), "; Pow before opset 12 takes one type for both"));
  }
  const bool integer_base = x->type() == TensorProto::INT32 || x->type() == TensorProto::INT64;
  if (integer_base && !ctx.OpsetAtLeast(kPowIntegerBaseOpset)) {
    return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), "; Pow before opset 12 takes a float base"));
  }
  ASSIGN_OR_RETURN(const BinaryShapes shapes, BinaryOperandShapes(ctx, x->dims(), y->dims()));
  return Single(VisitPowBase(x->type(), [&](auto base_tag) {
    using T = decltype(base_tag);
    return VisitNumeric(y->type(), "Pow's exponent",
                        [&](auto exponent_tag) { return ApplyPow<T, decltype(exponent_tag)>(*x, *y, shapes); });
  }));
}

enum class Variadic { kSum, kMax, kMin, kMean };

template <typename T>
T Combine(Variadic op, T acc, T value) {
  switch (op) {
    case Variadic::kSum:
    case Variadic::kMean: return WrappingAdd(acc, value);
    // NaN propagates (numpy's maximum/minimum): a NaN input makes a NaN output whatever its position.
    case Variadic::kMax:
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(acc) || std::isnan(value)) return std::numeric_limits<T>::quiet_NaN();
      }
      return value > acc ? value : acc;
    case Variadic::kMin:
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(acc) || std::isnan(value)) return std::numeric_limits<T>::quiet_NaN();
      }
      return value < acc ? value : acc;
  }
  return acc;
}

template <typename T>
absl::StatusOr<Tensor> ApplyVariadic(Variadic op, const std::vector<const Tensor*>& inputs,
                                     const std::vector<int64_t>& out_dims) {
  RETURN_IF_ERROR(CheckedOutputCount(out_dims, "the output").status());
  // The first input writes every element; the others combine with what is there.
  ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(inputs[0]->type(), out_dims));
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ElementsAs<T> x(*inputs[k]);
    const std::array<std::vector<int64_t>, 1> strides = {BroadcastStrides(inputs[k]->dims(), out_dims)};
    ForEachBroadcast(out_dims, strides, [&](int64_t i, const std::array<int64_t, 1>& at) {
      out[i] = k == 0 ? x[at[0]] : Combine(op, out[i], x[at[0]]);
    });
  }
  if (op == Variadic::kMean) {
    if constexpr (std::is_integral_v<T>) return absl::InternalError("Mean of integers");
    for (T& value : out) value /= static_cast<T>(inputs.size());
  }
  return std::move(out).Finish();
}

absl::StatusOr<Outputs> RunVariadic(const KernelContext& ctx, Variadic op) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, std::numeric_limits<int>::max()));
  std::vector<const Tensor*> inputs;
  std::vector<std::vector<int64_t>> shapes;
  for (int i = 0; i < ctx.node.input_size(); ++i) {
    ASSIGN_OR_RETURN(const Tensor* input, RequiredInput(ctx, i, "data"));
    if (input->type() != ctx.Input(0)->type()) {
      return absl::InvalidArgumentError(
          StrCat("inputs differ in type: ", Describe(*ctx.Input(0)), " and ", Describe(*input)));
    }
    if (!ctx.OpsetAtLeast(kVariadicBroadcastOpset) && input->dims() != ctx.Input(0)->dims()) {
      return absl::InvalidArgumentError(StrCat("inputs ", Describe(*ctx.Input(0)), " and ", Describe(*input),
                                               " differ in shape, which ", ctx.node.op_type(),
                                               " before opset 8 does not allow"));
    }
    inputs.push_back(input);
    shapes.push_back(input->dims());
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> out_dims, BroadcastDims(shapes));
  const DataType type = inputs[0]->type();
  if (op == Variadic::kMean) {
    return Single(
        VisitFloating(type, "Mean", [&](auto tag) { return ApplyVariadic<decltype(tag)>(op, inputs, out_dims); }));
  }
  return Single(VisitNumeric(type, ctx.node.op_type(),
                             [&](auto tag) { return ApplyVariadic<decltype(tag)>(op, inputs, out_dims); }));
}

// A unary op computed element by element in the input's computing type.
template <typename Visit, typename Fn>
absl::StatusOr<Outputs> RunUnary(const KernelContext& ctx, Visit visit, Fn fn) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  return Single(visit(x->type(), ctx.node.op_type(), [&](auto tag) -> absl::StatusOr<Tensor> {
    using T = decltype(tag);
    const ElementsAs<T> in(*x);
    ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(x->type(), x->dims()));
    for (size_t i = 0; i < in.size(); ++i) out[i] = static_cast<T>(fn(in[i]));
    return std::move(out).Finish();
  }));
}

template <typename Fn>
absl::StatusOr<Outputs> RunFloatingUnary(const KernelContext& ctx, Fn fn) {
  return RunUnary(
      ctx, [](DataType type, absl::string_view what, auto&& visit) { return VisitFloating(type, what, visit); }, fn);
}

// Negation: a sign flip for floats (NaN payloads kept), wrapping for integers (INT_MIN stays INT_MIN).
template <typename T>
T Negate(T x) {
  if constexpr (std::is_integral_v<T>) {
    return WrappingSub(T{0}, x);
  } else {
    return -x;
  }
}

// Sign-9: -1, 0 or 1 (NaN stays NaN, -0.0 gives 0).
template <typename T>
T SignOf(T x) {
  if constexpr (!std::is_integral_v<T>) {
    if (std::isnan(x)) return x;
  }
  return x > T{0} ? T{1} : (x < T{0} ? static_cast<T>(-1) : T{0});
}

template <typename T>
T Absolute(T x) {
  if constexpr (std::is_unsigned_v<T>) {
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    return x < 0 ? Negate(x) : x;
  } else {
    return std::fabs(x);
  }
}

}  // namespace

void AddElementwiseKernels(KernelTable& table) {
  table["Add"] = [](const KernelContext& ctx) { return RunBinary(ctx, BinaryOp::kAdd); };
  table["Sub"] = [](const KernelContext& ctx) { return RunBinary(ctx, BinaryOp::kSub); };
  table["Mul"] = [](const KernelContext& ctx) { return RunBinary(ctx, BinaryOp::kMul); };
  table["Div"] = [](const KernelContext& ctx) { return RunBinary(ctx, BinaryOp::kDiv); };
  table["Pow"] = RunPow;
  table["Sum"] = [](const KernelContext& ctx) { return RunVariadic(ctx, Variadic::kSum); };
  table["Max"] = [](const KernelContext& ctx) { return RunVariadic(ctx, Variadic::kMax); };
  table["Min"] = [](const KernelContext& ctx) { return RunVariadic(ctx, Variadic::kMin); };
  table["Mean"] = [](const KernelContext& ctx) { return RunVariadic(ctx, Variadic::kMean); };
  table["Neg"] = [](const KernelContext& ctx) {
    return RunUnary(
        ctx, [](DataType type, absl::string_view what, auto&& visit) { return VisitSignedNumeric(type, what, visit); },
        [](auto x) { return Negate(x); });
  };
  table["Abs"] = [](const KernelContext& ctx) {
    return RunUnary(
        ctx, [](DataType type, absl::string_view what, auto&& visit) { return VisitNumeric(type, what, visit); },
        [](auto x) { return Absolute(x); });
  };
  table["Sign"] = [](const KernelContext& ctx) {
    return RunUnary(
        ctx, [](DataType type, absl::string_view what, auto&& visit) { return VisitNumeric(type, what, visit); },
        [](auto x) { return SignOf(x); });
  };
  table["Sqrt"] = [](const KernelContext& ctx) { return RunFloatingUnary(ctx, [](auto x) { return std::sqrt(x); }); };
  table["Exp"] = [](const KernelContext& ctx) { return RunFloatingUnary(ctx, [](auto x) { return std::exp(x); }); };
  table["Log"] = [](const KernelContext& ctx) { return RunFloatingUnary(ctx, [](auto x) { return std::log(x); }); };
  // Erf of the floating types (Erf-9 and -13 also take integers, which no exporter writes).
  table["Erf"] = [](const KernelContext& ctx) { return RunFloatingUnary(ctx, [](auto x) { return std::erf(x); }); };
  table["Floor"] = [](const KernelContext& ctx) { return RunFloatingUnary(ctx, [](auto x) { return std::floor(x); }); };
  table["Ceil"] = [](const KernelContext& ctx) { return RunFloatingUnary(ctx, [](auto x) { return std::ceil(x); }); };
  // Round-11: halves to the even neighbour, as nearbyint does in the default rounding mode (which keeps -0).
  table["Round"] = [](const KernelContext& ctx) {
    return RunFloatingUnary(ctx, [](auto x) { return std::nearbyint(x); });
  };
  table["Reciprocal"] = [](const KernelContext& ctx) {
    return RunFloatingUnary(ctx, [](auto x) { return decltype(x){1} / x; });
  };
}

}  // namespace onnx_legalize
