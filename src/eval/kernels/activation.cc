// Activations, each element on its own: Relu, LeakyRelu, PRelu, Elu, Selu, Sigmoid, HardSigmoid, HardSwish, Tanh,
// Softplus, Mish, Softsign, ThresholdedRelu (from opset 10), Shrink, Clip. Formulas are their specs' (the version the
// opset selects: the attributes have not changed meaning since version 1, but Clip-11 moved min/max to inputs
// and PRelu-7 broadcasts its slope). float16 is computed in float; the transcendental functions are the C
// library's (std::exp, std::tanh, std::log1p), so a value is the same on every run of one build.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/float16.h"
#include "core/status_macros.h"
#include "eval/kernels/broadcast.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

// Relu-14 adds the signed integer types; before, floats only.
constexpr int64_t kIntegerReluOpset = 14;
constexpr int64_t kNumpyPReluOpset = 7;  // PRelu-7 broadcasts its slope numpy-style
// Clip-11 takes min and max as inputs 1 and 2 instead of attributes; Clip-12 adds the integer types.
constexpr int64_t kClipInputsOpset = 11;
constexpr int64_t kIntegerClipOpset = 12;
constexpr int64_t kThresholdedReluOpset = 10;

// An activation y = fn(x, params...) over a floating tensor.
template <typename Fn>
absl::StatusOr<Outputs> RunActivation(const KernelContext& ctx, Fn fn) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  return Single(VisitFloating(x->type(), ctx.node.op_type(), [&](auto tag) -> absl::StatusOr<Tensor> {
    using T = decltype(tag);
    const ElementsAs<T> in(*x);
    ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(x->type(), x->dims()));
    for (size_t i = 0; i < in.size(); ++i) out[i] = static_cast<T>(fn(in[i]));
    return std::move(out).Finish();
  }));
}

absl::StatusOr<Outputs> RunRelu(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  auto relu = [&](auto tag) -> absl::StatusOr<Tensor> {
    using T = decltype(tag);
    const ElementsAs<T> in(*x);
    ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(x->type(), x->dims()));
    for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] < T{0} ? T{0} : in[i];  // NaN and -0.0 pass unchanged
    return std::move(out).Finish();
  };
  if (ctx.OpsetAtLeast(kIntegerReluOpset)) return Single(VisitSignedNumeric(x->type(), "Relu", relu));
  return Single(VisitFloating(x->type(), "Relu", relu));
}

absl::StatusOr<Outputs> RunLeakyRelu(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const float alpha, FloatAttributeOr(ctx.node, "alpha", 0.01f));
  return RunActivation(ctx, [alpha](auto x) {
    using T = decltype(x);
    return x < T{0} ? static_cast<T>(alpha) * x : x;
  });
}

absl::StatusOr<Outputs> RunElu(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const float alpha, FloatAttributeOr(ctx.node, "alpha", 1.0f));
  return RunActivation(ctx, [alpha](auto x) {
    using T = decltype(x);
    return x < T{0} ? static_cast<T>(alpha) * (std::exp(x) - T{1}) : x;
  });
}

// Selu-6's defaults, the float nearest to the constants of Klambauer et al.
absl::StatusOr<Outputs> RunSelu(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const float alpha, FloatAttributeOr(ctx.node, "alpha", 1.67326319217681884765625f));
  ASSIGN_OR_RETURN(const float gamma, FloatAttributeOr(ctx.node, "gamma", 1.05070102214813232421875f));
  return RunActivation(ctx, [alpha, gamma](auto x) {
    using T = decltype(x);
    const T a = static_cast<T>(alpha), g = static_cast<T>(gamma);
    return x > T{0} ? g * x : g * (a * std::exp(x) - a);
  });
}

// max(0, min(1, alpha * x + beta)); NaN stays NaN.
template <typename T>
T HardSigmoidOf(T x, float alpha, float beta) {
  const T y = static_cast<T>(alpha) * x + static_cast<T>(beta);
  if (std::isnan(y)) return y;
  return std::max(T{0}, std::min(T{1}, y));
}

absl::StatusOr<Outputs> RunHardSigmoid(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const float alpha, FloatAttributeOr(ctx.node, "alpha", 0.2f));
  ASSIGN_OR_RETURN(const float beta, FloatAttributeOr(ctx.node, "beta", 0.5f));
  return RunActivation(ctx, [alpha, beta](auto x) { return HardSigmoidOf(x, alpha, beta); });
}

// HardSwish-14: x * HardSigmoid(x) with alpha 1/6 (the float onnx's function body holds) and beta 1/2, computed
// as that body computes it.
absl::StatusOr<Outputs> RunHardSwish(const KernelContext& ctx) {
  return RunActivation(ctx, [](auto x) { return x * HardSigmoidOf(x, 1.0f / 6.0f, 0.5f); });
}

// ThresholdedRelu-10: y = x > alpha ? x : 0 (alpha default 1). Before opset 10 the op is the experimental
// ThresholdedRelu-1, which the legalizer's rule computes (ExtraKernels), not this kernel.
absl::StatusOr<Outputs> RunThresholdedRelu(const KernelContext& ctx) {
  if (!ctx.OpsetAtLeast(kThresholdedReluOpset)) {
    return absl::UnimplementedError("ThresholdedRelu-1 (experimental) is computed by the legalizer's rule");
  }
  ASSIGN_OR_RETURN(const float alpha, FloatAttributeOr(ctx.node, "alpha", 1.0f));
  return RunActivation(ctx, [alpha](auto x) {
    using T = decltype(x);
    return x > static_cast<T>(alpha) ? x : T{0};
  });
}

// Shrink-9: y = x < -lambd ? x + bias : (x > lambd ? x - bias : 0), lambd default 0.5, bias default 0.
absl::StatusOr<Outputs> RunShrink(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const float lambd, FloatAttributeOr(ctx.node, "lambd", 0.5f));
  ASSIGN_OR_RETURN(const float bias, FloatAttributeOr(ctx.node, "bias", 0.0f));
  return RunActivation(ctx, [lambd, bias](auto x) {
    using T = decltype(x);
    const T l = static_cast<T>(lambd), b = static_cast<T>(bias);
    return x < -l ? x + b : (x > l ? x - b : T{0});
  });
}

// Softplus = log(exp(x) + 1), computed as x + log1p(exp(-x)) for x > 0 so that it does not overflow where
// the result is finite (the same value mathematically; for x <= 0, log1p(exp(x))).
template <typename T>
T Softplus(T x) {
  return x > T{0} ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

// Mish-18: x * tanh(softplus(x)), computed as onnx's function body computes it (Softplus, then Tanh, then Mul),
// each step's value held as the body's tensors hold it (float16 rounds between steps), so that Mish and its body
// give the same bits: Mish moved below 18 is written as that body (upgrade/down_replacements.cc), and ONNX Runtime
// 1.31 computes the two alike too.
absl::StatusOr<Outputs> RunMish(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  const bool float16 = x->type() == onnx::TensorProto::FLOAT16;
  return RunActivation(ctx, [float16](auto v) {
    using T = decltype(v);
    const auto held = [float16](T value) -> T {
      if constexpr (std::is_same_v<T, float>) {
        if (float16) return Float16ToFloat(FloatToFloat16(value));
      }
      return value;
    };
    return v * held(std::tanh(held(Softplus(v))));
  });
}

// PRelu: y = x < 0 ? slope * x : x (NaN and -0.0 pass through as x). PRelu-6 and before apply one value to
// all, a 1-D slope of X's dim 1 per channel, or a slope of X's shape element by element; PRelu-7 broadcasts
// the slope to X numpy-style, from the last axis.
absl::StatusOr<std::vector<int64_t>> PReluSlopeDims(const Tensor& x, const Tensor& slope, const KernelContext& ctx) {
  const std::vector<int64_t>& xd = x.dims();
  const std::vector<int64_t>& sd = slope.dims();
  if (slope.element_count() == 1) return std::vector<int64_t>(xd.size(), 1);
  if (!ctx.OpsetAtLeast(kNumpyPReluOpset)) {
    if (sd == xd) return sd;
    if (sd.size() == 1 && xd.size() >= 2 && sd[0] == xd[1]) {
      std::vector<int64_t> per_channel(xd.size(), 1);
      per_channel[1] = sd[0];
      return per_channel;
    }
    return absl::InvalidArgumentError(StrCat("slope ", DimsString(sd), " does not fit X ", DimsString(xd),
                                             " under PRelu-6 and before",
                                             " (one value, one per channel of axis 1, or X's shape)"));
  }
  if (!BroadcastsTo(sd, xd)) {
    return absl::InvalidArgumentError(StrCat("slope ", DimsString(sd), " does not broadcast to X ", DimsString(xd)));
  }
  return sd;
}

absl::StatusOr<Outputs> RunPRelu(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const Tensor* slope, RequiredInput(ctx, 1, "slope"));
  if (x->type() != slope->type()) {
    return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), " and slope ", Describe(*slope)));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> slope_dims, PReluSlopeDims(*x, *slope, ctx));
  return Single(VisitFloating(x->type(), "PRelu", [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> values = ReadAs<T>(*x);
    const std::vector<T> slopes = ReadAs<T>(*slope);
    const std::array<std::vector<int64_t>, 1> strides = {BroadcastStrides(slope_dims, x->dims())};
    ForEachBroadcast(x->dims(), strides, [&](int64_t i, const std::array<int64_t, 1>& at) {
      if (values[i] < T{0}) values[i] = slopes[at[0]] * values[i];
    });
    return WriteAs<T>(x->type(), x->dims(), values);
  }));
}

// The lowest finite value of `type` in its computing type T (float16's is -65504).
template <typename T>
T LowestOf(DataType type) {
  if (type == onnx::TensorProto::FLOAT16) return static_cast<T>(-65504.0f);
  return std::numeric_limits<T>::lowest();
}

template <typename T>
T HighestOf(DataType type) {
  if (type == onnx::TensorProto::FLOAT16) return static_cast<T>(65504.0f);
  return std::numeric_limits<T>::max();
}

// The bound Clip-11 reads from an optional input: a one-element tensor of X's type.
template <typename T>
absl::StatusOr<std::optional<T>> ClipBound(const KernelContext& ctx, size_t index, const Tensor& x) {
  const Tensor* bound = ctx.Input(index);
  if (bound == nullptr) return std::nullopt;
  if (bound->type() != x.type() || bound->element_count() != 1) {
    return absl::InvalidArgumentError(StrCat("input ", index, " must be one element of X's type ",
                                             DataTypeName(x.type()), ", got ", Describe(*bound)));
  }
  return ReadAs<T>(*bound)[0];
}

template <typename T>
absl::StatusOr<Tensor> ApplyClip(const KernelContext& ctx, const Tensor& x) {
  std::optional<T> low, high;
  if (!ctx.OpsetAtLeast(kClipInputsOpset)) {
    ASSIGN_OR_RETURN(const std::optional<float> min, FloatAttribute(ctx.node, "min"));
    ASSIGN_OR_RETURN(const std::optional<float> max, FloatAttribute(ctx.node, "max"));
    if (min) low = static_cast<T>(*min);
    if (max) high = static_cast<T>(*max);
  } else {
    ASSIGN_OR_RETURN(low, ClipBound<T>(ctx, 1, x));
    ASSIGN_OR_RETURN(high, ClipBound<T>(ctx, 2, x));
  }
  // An absent bound is the type's lowest or greatest value (Clip-6's defaults, Clip-11's text), so +-inf is
  // clipped to the greatest finite value.
  if (!low) low = LowestOf<T>(x.type());
  if (!high) high = HighestOf<T>(x.type());
  std::vector<T> values = ReadAs<T>(x);
  // min first, then max: where min > max every value becomes max (Clip-13's text); NaN passes through.
  for (T& value : values) {
    if (value < *low) value = *low;
    if (value > *high) value = *high;
  }
  return WriteAs<T>(x.type(), x.dims(), values);
}

absl::StatusOr<Outputs> RunClip(const KernelContext& ctx) {
  if (!ctx.OpsetAtLeast(kClipInputsOpset)) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "min", "takes as input 1 instead"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "max", "takes as input 2 instead"));
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 3));
  }
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  auto clip = [&](auto tag) { return ApplyClip<decltype(tag)>(ctx, *x); };
  if (ctx.OpsetAtLeast(kIntegerClipOpset)) return Single(VisitNumeric(x->type(), "Clip", clip));
  return Single(VisitFloating(x->type(), "Clip", clip));
}

}  // namespace

void AddActivationKernels(KernelTable& table) {
  table["Relu"] = RunRelu;
  table["LeakyRelu"] = RunLeakyRelu;
  table["PRelu"] = RunPRelu;
  table["Elu"] = RunElu;
  table["Selu"] = RunSelu;
  table["HardSigmoid"] = RunHardSigmoid;
  table["HardSwish"] = RunHardSwish;
  table["Clip"] = RunClip;
  table["ThresholdedRelu"] = RunThresholdedRelu;
  table["Shrink"] = RunShrink;
  table["Sigmoid"] = [](const KernelContext& ctx) {
    return RunActivation(ctx, [](auto x) { return decltype(x){1} / (decltype(x){1} + std::exp(-x)); });
  };
  table["Tanh"] = [](const KernelContext& ctx) { return RunActivation(ctx, [](auto x) { return std::tanh(x); }); };
  table["Softplus"] = [](const KernelContext& ctx) { return RunActivation(ctx, [](auto x) { return Softplus(x); }); };
  table["Mish"] = RunMish;
  table["Softsign"] = [](const KernelContext& ctx) {
    return RunActivation(ctx, [](auto x) { return x / (decltype(x){1} + std::fabs(x)); });
  };
}

}  // namespace onnx_legalize
