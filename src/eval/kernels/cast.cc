// Cast between the numeric types and bool. Cast-1 names the target type as a string ("FLOAT"), Cast-6 and
// later by its TensorProto number.
//
// Each element converts once, as C++'s static_cast does (round to nearest for a float target), except that a
// float16 target goes through float (as the runtimes do). A float that is NaN or out of an integer target's
// range is an error: ONNX (and C++) leave that cast undefined. A bool target is value != 0.
//
// Cast-19 to Cast-28 add only types the runner has none of (float8, int4, float4, float8e8m0, int2, float6) and
// two attributes that apply only to them: saturate (19, the float8 targets) and round_mode (24, float8e8m0).
// The runner takes both where they exist, as they change nothing it computes, and refuses them before.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
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

// bool is stored as one byte 0 or 1; it converts as that integer, and to it as != 0.
struct Bool {
  uint8_t value;
};

template <typename From, typename To>
absl::StatusOr<Tensor> Convert(const Tensor& x, DataType to) {
  using Read = std::conditional_t<std::is_same_v<From, Bool>, uint8_t, From>;
  const std::vector<Read> in = ReadAs<Read>(x);
  using Write = std::conditional_t<std::is_same_v<To, Bool>, uint8_t, To>;
  std::vector<Write> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if constexpr (std::is_same_v<To, Bool>) {
      out[i] = in[i] != Read{0} ? 1 : 0;
    } else {
      if constexpr (std::is_floating_point_v<Read> && std::is_integral_v<To>) {
        const auto low = static_cast<long double>(std::numeric_limits<To>::min());
        const auto high = static_cast<long double>(std::numeric_limits<To>::max()) + 1.0L;
        if (!(static_cast<long double>(in[i]) > low - 1.0L && static_cast<long double>(in[i]) < high)) {
          return absl::InvalidArgumentError(
              StrCat("value ", in[i], " at index ", i, " does not fit ", DataTypeName(to), "; the cast is undefined"));
        }
      }
      // int8 is a number here, not a character: widening it sign-extends, as the runtimes do.
      // NOLINTNEXTLINE(bugprone-signed-char-misuse): an integer narrowing wraps, as the runtimes do
      out[i] = static_cast<To>(in[i]);
    }
  }
  return WriteAs<Write>(to, x.dims(), out);
}

// Calls fn(T{}) with T the computing type of `type` (Bool for bool, float for float16).
template <typename Fn>
auto VisitCastable(DataType type, absl::string_view what, Fn&& fn) -> decltype(fn(float{})) {
  if (type == TensorProto::BOOL) return fn(Bool{});
  return VisitNumeric(type, what, std::forward<Fn>(fn));
}

// Cast-1's `to` is a string naming the type as TensorProto.DataType spells it.
absl::StatusOr<DataType> TargetType(const KernelContext& ctx) {
  if (!ctx.OpsetAtLeast(6)) {
    ASSIGN_OR_RETURN(const std::optional<std::string> name, StringAttribute(ctx.node, "to"));
    if (!name) return absl::InvalidArgumentError("attribute 'to' is missing");
    TensorProto::DataType type;
    if (!TensorProto::DataType_Parse(*name, &type)) {
      return absl::InvalidArgumentError(StrCat("attribute 'to' names no type: '", *name, "'"));
    }
    return static_cast<DataType>(type);
  }
  ASSIGN_OR_RETURN(const std::optional<int64_t> to, IntAttribute(ctx.node, "to"));
  if (!to) return absl::InvalidArgumentError("attribute 'to' is missing");
  return static_cast<DataType>(*to);
}

constexpr int64_t kCastSaturateOpset = 19;
constexpr int64_t kCastRoundModeOpset = 24;
constexpr int64_t kCastLikeOpset = 15;

absl::Status CheckFloat8Attributes(const KernelContext& ctx) {
  if (!ctx.OpsetAtLeast(kCastSaturateOpset)) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "saturate", "does not have (added at opset 19)"));
  }
  if (!ctx.OpsetAtLeast(kCastRoundModeOpset)) {
    return RejectAttribute(ctx, "round_mode", "does not have (added at opset 24)");
  }
  ASSIGN_OR_RETURN(const std::string round_mode, StringAttributeOr(ctx.node, "round_mode", "up"));
  if (round_mode != "up" && round_mode != "down" && round_mode != "nearest") {
    return absl::InvalidArgumentError(StrCat("round_mode '", round_mode, "' is none of up, down, nearest"));
  }
  return absl::OkStatus();
}

// `x` converted to `to`: the input itself when it is of that type already.
absl::StatusOr<Outputs> CastTo(const KernelContext& ctx, const Tensor& x, DataType to) {
  if (to == x.type()) return Outputs{ctx.inputs[0]};
  const std::string what = StrCat("Cast of ", Describe(x), " to ", DataTypeName(to), ": the input");
  return Single(VisitCastable(x.type(), what, [&](auto from) {
    return VisitCastable(to, StrCat("Cast of ", Describe(x), " to ", DataTypeName(to), ": the target"),
                         [&](auto target) { return Convert<decltype(from), decltype(target)>(x, to); });
  }));
}

absl::StatusOr<Outputs> RunCast(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  RETURN_IF_ERROR(CheckFloat8Attributes(ctx));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  ASSIGN_OR_RETURN(const DataType to, TargetType(ctx));
  return CastTo(ctx, *x, to);
}

// CastLike (opset 15): Cast to the element type of its second input, whose values are not read. The function
// bodies of onnx's ops use it from opset 15 (LeakyRelu, PRelu, ReduceL2, ...).
absl::StatusOr<Outputs> RunCastLike(const KernelContext& ctx) {
  if (!ctx.OpsetAtLeast(kCastLikeOpset)) return absl::InvalidArgumentError("CastLike is an op from opset 15");
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  RETURN_IF_ERROR(CheckFloat8Attributes(ctx));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  ASSIGN_OR_RETURN(const Tensor* like, RequiredInput(ctx, 1, "target_type"));
  return CastTo(ctx, *x, like->type());
}

}  // namespace

void AddCastKernels(KernelTable& table) {
  table["Cast"] = RunCast;
  table["CastLike"] = RunCastLike;
}

}  // namespace onnx_legalize
