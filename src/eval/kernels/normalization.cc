// BatchNormalization (inference form), InstanceNormalization, LRN. float16 is computed in float.
//
// BatchNormalization: Y = (X - mean) / sqrt(var + epsilon) * scale + B, evaluated left to right per element
// with sqrt(var + epsilon) computed once per parameter element. Versions: BN-1 (consumed_inputs), BN-1/6
// (is_test), BN-1/6/7 (spatial: 1 gives the parameters per channel [C]; 0 per element of [C, D1, ...]),
// BN-9 (parameters per channel only), BN-14 (training_mode), BN-15 (scale and B, mean and var may be of other
// floating types than X; they are converted to X's computing type). The runner computes the inference form:
// the mean and var outputs of training (BN-1/6 with is_test=0, BN-7/9 asked for them, BN-14's training_mode)
// are not executed; BN-1/6's is_test=0 with Y alone is run as inference, as the runtimes run it.
// InstanceNormalization: y = scale * (x - mean) / sqrt(var + epsilon) + B per (n, c), mean and the biased
// variance summed over the spatial elements in row-major order.
// LRN: y = x / (bias + alpha / size * square_sum) ^ beta, square_sum over the channels
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] inside the input, added in channel order.
// MeanVarianceNormalization-9/13 (a function): over `axes` (default [0, 2, 3]), y = (x - E[x]) /
// (sqrt(E[x^2] - E[x]^2) + 1e-9), each mean a sum in row-major order divided by the count. Before opset 9 the
// op is the experimental MVN-1, which the legalizer's rule computes (ExtraKernels), not this kernel.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

constexpr int64_t kNoIsTestOpset = 7;
constexpr int64_t kNoSpatialOpset = 9;
constexpr int64_t kTrainingModeOpset = 14;
constexpr int64_t kMixedTypesOpset = 15;
constexpr int64_t kMeanVarianceFunctionOpset = 9;

// A parameter tensor read as T, whatever its floating type (BN-15 lets it differ from X's).
template <typename T>
absl::StatusOr<std::vector<T>> Parameter(const Tensor& p) {
  if (p.type() == onnx::TensorProto::DOUBLE) {
    const std::vector<double> values = ReadAs<double>(p);
    return std::vector<T>(values.begin(), values.end());
  }
  if (!IsFloating(p.type())) return absl::InvalidArgumentError(StrCat("parameter ", Describe(p), " is not floating"));
  const std::vector<float> values = ReadAs<float>(p);
  return std::vector<T>(values.begin(), values.end());
}

// What the node computes: inference; BatchNormalization-14's training mode (X normalized by its own statistics,
// the running statistics as outputs 1 and 2), which the runner executes; or the training forms before 14 (their
// saved statistics as extra outputs), which it does not.
enum class BatchNormForm { kInference, kTrainingMode, kLegacyTraining };

absl::StatusOr<BatchNormForm> BatchNormFormOf(const KernelContext& ctx) {
  bool extra_outputs = false;
  for (int i = 1; i < ctx.node.output_size(); ++i) extra_outputs = extra_outputs || ctx.WantsOutput(i);
  if (ctx.OpsetAtLeast(kTrainingModeOpset)) {
    ASSIGN_OR_RETURN(const int64_t training, IntAttributeOr(ctx.node, "training_mode", 0));
    if (training != 0) return BatchNormForm::kTrainingMode;
    if (extra_outputs) return absl::InvalidArgumentError("running_mean and running_var exist only in training mode");
    return BatchNormForm::kInference;
  }
  RETURN_IF_ERROR(RejectAttribute(ctx, "training_mode", "does not have (added at opset 14)"));
  if (ctx.OpsetAtLeast(kNoIsTestOpset))
    RETURN_IF_ERROR(RejectAttribute(ctx, "is_test", "does not have (removed at 7)"));
  return extra_outputs ? BatchNormForm::kLegacyTraining : BatchNormForm::kInference;
}

template <typename T>
absl::StatusOr<Tensor> ApplyBatchNorm(const Tensor& x, const std::vector<const Tensor*>& params, float epsilon,
                                      int64_t per_item) {
  std::vector<std::vector<T>> p;
  for (const Tensor* param : params) {
    ASSIGN_OR_RETURN(std::vector<T> values, Parameter<T>(*param));
    p.push_back(std::move(values));
  }
  const std::vector<T>& scale = p[0];
  const std::vector<T>& bias = p[1];
  const std::vector<T>& mean = p[2];
  std::vector<T> root = p[3];
  for (T& value : root) value = std::sqrt(value + static_cast<T>(epsilon));
  const ElementsAs<T> in(x);
  ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(x.type(), x.dims()));
  if (in.empty()) return std::move(out).Finish();  // a dim of 0, perhaps C itself
  const int64_t params_size = static_cast<int64_t>(scale.size());
  const int64_t inner = per_item / params_size;  // elements per parameter within one item of the batch
  // Item by item, parameter by parameter: each run of `inner` elements shares its parameter.
  const T* value = in.data();
  T* result = out.data();
  for (int64_t item = 0; item < static_cast<int64_t>(in.size()) / per_item; ++item) {
    for (size_t k = 0; k < scale.size(); ++k) {
      for (int64_t i = 0; i < inner; ++i) *result++ = (*value++ - mean[k]) / root[k] * scale[k] + bias[k];
    }
  }
  return std::move(out).Finish();
}

// One value per channel of `x` ([N, C, ...]): its mean and its population variance over the batch and the spatial
// dims, summed in double.
template <typename T>
absl::Status BatchStatistics(const Tensor& x, Tensor& mean, Tensor& variance) {
  const int64_t items = x.dims()[0], channels = x.dims()[1];
  const int64_t inner = DimsProduct(x.dims(), 2, x.dims().size());
  const auto count = static_cast<double>(items * inner);
  const ElementsAs<T> in(x);
  ASSIGN_OR_RETURN(OutputAs<T> means, OutputAs<T>::Make(x.type(), {channels}));
  ASSIGN_OR_RETURN(OutputAs<T> variances, OutputAs<T>::Make(x.type(), {channels}));
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0;
    for (int64_t n = 0; n < items; ++n) {
      const T* run = in.data() + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) sum += static_cast<double>(run[i]);
    }
    const double channel_mean = sum / count;
    double squares = 0;
    for (int64_t n = 0; n < items; ++n) {
      const T* run = in.data() + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const double d = static_cast<double>(run[i]) - channel_mean;
        squares += d * d;
      }
    }
    means[static_cast<size_t>(c)] = static_cast<T>(channel_mean);
    variances[static_cast<size_t>(c)] = static_cast<T>(squares / count);
  }
  mean = std::move(means).Finish();
  variance = std::move(variances).Finish();
  return absl::OkStatus();
}

// running = input * momentum + batch * (1 - momentum), in the type of the input statistic.
absl::StatusOr<Tensor> RunningStatistic(const Tensor& input, const Tensor& batch, float momentum) {
  return VisitFloating(input.type(), "BatchNormalization's running statistic", [&](auto tag) -> absl::StatusOr<Tensor> {
    using U = decltype(tag);
    ASSIGN_OR_RETURN(const std::vector<U> batch_values, Parameter<U>(batch));
    const ElementsAs<U> input_values(input);
    ASSIGN_OR_RETURN(OutputAs<U> out, OutputAs<U>::Make(input.type(), input.dims()));
    const auto m = static_cast<U>(momentum);
    for (size_t c = 0; c < out.size(); ++c) out[c] = input_values[c] * m + batch_values[c] * (U{1} - m);
    return std::move(out).Finish();
  });
}

// BatchNormalization-14/15 in training mode: X normalized by its own statistics, and the running statistics.
template <typename T>
absl::StatusOr<Outputs> ApplyTrainingBatchNorm(const KernelContext& ctx, const Tensor& x,
                                               std::vector<const Tensor*> params, float epsilon, int64_t per_item) {
  ASSIGN_OR_RETURN(const float momentum, FloatAttributeOr(ctx.node, "momentum", 0.9f));
  Tensor batch_mean, batch_variance;
  RETURN_IF_ERROR(BatchStatistics<T>(x, batch_mean, batch_variance));
  const Tensor* input_mean = params[2];
  const Tensor* input_variance = params[3];
  params[2] = &batch_mean;
  params[3] = &batch_variance;
  ASSIGN_OR_RETURN(Tensor y, ApplyBatchNorm<T>(x, params, epsilon, per_item));
  ASSIGN_OR_RETURN(Tensor running_mean, RunningStatistic(*input_mean, batch_mean, momentum));
  ASSIGN_OR_RETURN(Tensor running_variance, RunningStatistic(*input_variance, batch_variance, momentum));
  return Outputs{Share(std::move(y)), Share(std::move(running_mean)), Share(std::move(running_variance))};
}

absl::StatusOr<Outputs> RunBatchNormalization(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 5, 5));
  ASSIGN_OR_RETURN(const BatchNormForm form, BatchNormFormOf(ctx));
  if (form == BatchNormForm::kLegacyTraining) {
    return absl::UnimplementedError("BatchNormalization's training form before opset 14 (its saved statistics)");
  }
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  std::vector<const Tensor*> params;
  for (size_t i = 1; i < 5; ++i) {
    ASSIGN_OR_RETURN(const Tensor* param, RequiredInput(ctx, i, "scale, B, mean, var"));
    if (!ctx.OpsetAtLeast(kMixedTypesOpset) && param->type() != x->type()) {
      return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), " but input ", i, " is ", Describe(*param),
                                               "; types may differ only from opset 15"));
    }
    params.push_back(param);
  }
  int64_t spatial = 1;
  if (!ctx.OpsetAtLeast(kNoSpatialOpset)) {
    ASSIGN_OR_RETURN(spatial, IntAttributeOr(ctx.node, "spatial", 1));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "spatial", "does not have (removed at 9)"));
  }
  ASSIGN_OR_RETURN(const float epsilon, FloatAttributeOr(ctx.node, "epsilon", 1e-5f));
  if (x->rank() < 2) return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), "; it must be [N, C, ...]"));
  // spatial = 1: one parameter per channel; spatial = 0: one per element of an item, [C, D1, ...].
  std::vector<int64_t> expected = {x->dims()[1]};
  if (spatial == 0) expected.assign(x->dims().begin() + 1, x->dims().end());
  for (const Tensor* param : params) {
    if (param->dims() != expected) {
      return absl::InvalidArgumentError(StrCat("parameter ", Describe(*param), " does not fit X ", Describe(*x),
                                               " (spatial=", spatial, " wants ", DimsString(expected), ")"));
    }
  }
  const int64_t per_item = DimsProduct(x->dims(), 1, x->dims().size());
  if (form == BatchNormForm::kTrainingMode) {
    return VisitFloating(x->type(), "BatchNormalization", [&](auto tag) {
      return ApplyTrainingBatchNorm<decltype(tag)>(ctx, *x, params, epsilon, per_item);
    });
  }
  return Single(VisitFloating(x->type(), "BatchNormalization",
                              [&](auto tag) { return ApplyBatchNorm<decltype(tag)>(*x, params, epsilon, per_item); }));
}

template <typename T>
absl::StatusOr<Tensor> ApplyInstanceNorm(const Tensor& x, const Tensor& scale_tensor, const Tensor& bias_tensor,
                                         float epsilon) {
  std::vector<T> values = ReadAs<T>(x);
  const std::vector<T> scale = ReadAs<T>(scale_tensor), bias = ReadAs<T>(bias_tensor);
  const int64_t channels = x.dims()[1];
  const int64_t size = DimsProduct(x.dims(), 2, x.dims().size());
  const int64_t planes = x.dims()[0] * channels;
  for (int64_t plane = 0; plane < planes; ++plane) {
    T* run = values.data() + plane * size;
    T sum = 0;
    for (int64_t i = 0; i < size; ++i) sum += run[i];
    const T mean = sum / static_cast<T>(size);
    T squares = 0;
    for (int64_t i = 0; i < size; ++i) squares += (run[i] - mean) * (run[i] - mean);
    const T root = std::sqrt(squares / static_cast<T>(size) + static_cast<T>(epsilon));
    const auto c = static_cast<size_t>(plane % channels);
    for (int64_t i = 0; i < size; ++i) run[i] = scale[c] * (run[i] - mean) / root + bias[c];
  }
  return WriteAs<T>(x.type(), x.dims(), values);
}

absl::StatusOr<Outputs> RunInstanceNormalization(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 3));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  ASSIGN_OR_RETURN(const Tensor* scale, RequiredInput(ctx, 1, "scale"));
  ASSIGN_OR_RETURN(const Tensor* bias, RequiredInput(ctx, 2, "B"));
  if (x->rank() < 3 || scale->dims() != std::vector<int64_t>{x->dims()[1]} || bias->dims() != scale->dims() ||
      scale->type() != x->type() || bias->type() != x->type()) {
    return absl::InvalidArgumentError(StrCat("input ", Describe(*x), ", scale ", Describe(*scale), " and B ",
                                             Describe(*bias), " must be [N, C, D...], [C], [C] of one type"));
  }
  ASSIGN_OR_RETURN(const float epsilon, FloatAttributeOr(ctx.node, "epsilon", 1e-5f));
  return Single(VisitFloating(x->type(), "InstanceNormalization",
                              [&](auto tag) { return ApplyInstanceNorm<decltype(tag)>(*x, *scale, *bias, epsilon); }));
}

template <typename T>
absl::StatusOr<Tensor> ApplyLrn(const Tensor& x, int64_t size, float alpha, float beta, float bias) {
  const std::vector<T> in = ReadAs<T>(x);
  std::vector<T> out(in.size());
  const int64_t channels = x.dims()[1];
  const int64_t inner = DimsProduct(x.dims(), 2, x.dims().size());
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  const T scaled_alpha = static_cast<T>(alpha) / static_cast<T>(size);
  for (int64_t n = 0; n < x.dims()[0]; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t i = 0; i < inner; ++i) {
        T square_sum = 0;
        for (int64_t k = std::max<int64_t>(0, c - before); k <= std::min(channels - 1, c + after); ++k) {
          const T v = in[(n * channels + k) * inner + i];
          square_sum += v * v;
        }
        const size_t at = (n * channels + c) * inner + i;
        out[at] = in[at] / std::pow(static_cast<T>(bias) + scaled_alpha * square_sum, static_cast<T>(beta));
      }
    }
  }
  return WriteAs<T>(x.type(), x.dims(), out);
}

absl::StatusOr<Outputs> RunLrn(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const std::optional<int64_t> size, IntAttribute(ctx.node, "size"));
  if (!size || *size <= 0) return absl::InvalidArgumentError("attribute 'size' must be a positive int");
  ASSIGN_OR_RETURN(const float alpha, FloatAttributeOr(ctx.node, "alpha", 1e-4f));
  ASSIGN_OR_RETURN(const float beta, FloatAttributeOr(ctx.node, "beta", 0.75f));
  ASSIGN_OR_RETURN(const float bias, FloatAttributeOr(ctx.node, "bias", 1.0f));
  if (x->rank() < 3) return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), "; it must be [N, C, D...]"));
  return Single(
      VisitFloating(x->type(), "LRN", [&](auto tag) { return ApplyLrn<decltype(tag)>(*x, *size, alpha, beta, bias); }));
}

template <typename T>
absl::StatusOr<Tensor> ApplyMeanVarianceNormalization(const Tensor& x, const std::vector<bool>& reduced) {
  // Each element's group: its index with the reduced dims left out.
  const size_t rank = x.dims().size();
  std::vector<int64_t> group_stride(rank, 0);
  int64_t groups = 1;
  for (size_t d = rank; d-- > 0;) {
    group_stride[d] = reduced[d] ? 0 : groups;
    if (!reduced[d]) groups *= x.dims()[d];
  }
  std::vector<int64_t> group_of(static_cast<size_t>(x.element_count()));
  std::vector<int64_t> coordinate(rank, 0);
  for (int64_t i = 0; i < x.element_count(); ++i) {
    int64_t group = 0;
    for (size_t d = 0; d < rank; ++d) group += coordinate[d] * group_stride[d];
    group_of[i] = group;
    for (size_t d = rank; d-- > 0;) {
      if (++coordinate[d] < x.dims()[d]) break;
      coordinate[d] = 0;
    }
  }
  std::vector<T> values = ReadAs<T>(x);
  std::vector<T> sum(static_cast<size_t>(groups), T{0}), squares(static_cast<size_t>(groups), T{0});
  for (size_t i = 0; i < values.size(); ++i) {
    sum[group_of[i]] += values[i];
    squares[group_of[i]] += values[i] * values[i];
  }
  const auto count = static_cast<T>(groups == 0 ? 0 : x.element_count() / groups);
  std::vector<T> mean(sum.size()), denominator(sum.size());
  for (size_t g = 0; g < sum.size(); ++g) {
    mean[g] = sum[g] / count;
    denominator[g] = std::sqrt(squares[g] / count - mean[g] * mean[g]) + static_cast<T>(1e-9);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = (values[i] - mean[group_of[i]]) / denominator[group_of[i]];
  }
  return WriteAs<T>(x.type(), x.dims(), values);
}

absl::StatusOr<Outputs> RunMeanVarianceNormalization(const KernelContext& ctx) {
  if (!ctx.OpsetAtLeast(kMeanVarianceFunctionOpset)) {
    return absl::UnimplementedError("MeanVarianceNormalization-1 (experimental) is computed by the legalizer's rule");
  }
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> axes_attr, IntsAttribute(ctx.node, "axes"));
  const std::vector<int64_t> axes = axes_attr.value_or(std::vector<int64_t>{0, 2, 3});
  ASSIGN_OR_RETURN(const std::vector<int64_t> normalized, NormalizeAxes(axes, x->rank(), "axis"));
  std::vector<bool> reduced(x->rank(), false);
  for (const int64_t axis : normalized) reduced[axis] = true;
  return Single(VisitFloating(x->type(), "MeanVarianceNormalization",
                              [&](auto tag) { return ApplyMeanVarianceNormalization<decltype(tag)>(*x, reduced); }));
}

}  // namespace

void AddNormalizationKernels(KernelTable& table) {
  table["BatchNormalization"] = RunBatchNormalization;
  table["InstanceNormalization"] = RunInstanceNormalization;
  table["LRN"] = RunLrn;
  table["MeanVarianceNormalization"] = RunMeanVarianceNormalization;
}

}  // namespace onnx_legalize
