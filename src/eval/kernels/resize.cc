// Upsample and Resize, nearest and (N-)linear. The coordinate arithmetic is in float, as the runtimes do it.
//
// Upsample-1: attributes height_scale, width_scale (NCHW), mode NEAREST or BILINEAR; Upsample-7: attribute
// scales, mode nearest or linear; Upsample-9: scales as input 1. Resize-10: scales as input 1. All of them map an
// output coordinate x to x / scale in the input ("asymmetric"); nearest then takes floor of it when the dim
// grows and ceil when it shrinks (the texts say neither; ONNX Runtime's reading).
// Resize-11/13: inputs X, roi, scales, sizes (scales or sizes); coordinate_transformation_mode half_pixel
// (default), pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn; nearest_mode
// round_prefer_floor (default), round_prefer_ceil, floor, ceil. Not executed: cubic, tf_crop_and_resize.
// Output dims: floor(in * scale), or `sizes`.
//
// Linear interpolates each dim whose scale is not 1: a coordinate clamped to [0, in - 1] between its floor
// x0 and x0 + 1 (clamped), weights 1 - t and t; the corners are added in binary order (the first dim's low
// corner first), each value times the product of its weights.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

constexpr int64_t kUpsampleScalesAttributeOpset = 7;
constexpr int64_t kUpsampleScalesInputOpset = 9;
constexpr int64_t kResizeModesOpset = 11;

struct ResizePlan {
  std::vector<int64_t> out_dims;
  std::vector<float> scales;
  bool linear = false;
  std::string transform = "asymmetric";
  std::string nearest_mode = "legacy";  // floor when growing, ceil when shrinking (Upsample, Resize-10)
};

float SourceCoordinate(const ResizePlan& plan, int64_t x, size_t d, int64_t in) {
  const float scale = plan.scales[d];
  const int64_t out = plan.out_dims[d];
  const auto xf = static_cast<float>(x);
  if (plan.transform == "half_pixel") return (xf + 0.5f) / scale - 0.5f;
  if (plan.transform == "pytorch_half_pixel") return out > 1 ? (xf + 0.5f) / scale - 0.5f : 0.0f;
  if (plan.transform == "align_corners") {
    return out == 1 ? 0.0f : xf * static_cast<float>(in - 1) / static_cast<float>(out - 1);
  }
  if (plan.transform == "tf_half_pixel_for_nn") return (xf + 0.5f) / scale;
  return xf / scale;  // asymmetric
}

int64_t NearestIndex(const ResizePlan& plan, float x, size_t d, int64_t in) {
  int64_t i = 0;
  if (plan.nearest_mode == "legacy") {
    i = static_cast<int64_t>(plan.scales[d] < 1.0f ? std::ceil(x) : std::floor(x));
  } else if (plan.nearest_mode == "floor") {
    i = static_cast<int64_t>(std::floor(x));
  } else if (plan.nearest_mode == "ceil") {
    i = static_cast<int64_t>(std::ceil(x));
  } else {
    const float floor = std::floor(x);
    const bool half = x - floor == 0.5f;
    if (half) {
      i = static_cast<int64_t>(plan.nearest_mode == "round_prefer_ceil" ? floor + 1.0f : floor);
    } else {
      i = static_cast<int64_t>(std::round(x));
    }
  }
  return std::min(std::max<int64_t>(i, 0), in - 1);
}

// Per dim and output index: the two input indices and the weight of the second.
struct Taps {
  std::vector<int64_t> low, high;
  std::vector<float> t;
  bool interpolated = false;
};

std::vector<Taps> TapsOf(const ResizePlan& plan, const std::vector<int64_t>& in_dims) {
  std::vector<Taps> taps(in_dims.size());
  for (size_t d = 0; d < in_dims.size(); ++d) {
    Taps& tap = taps[d];
    tap.interpolated = plan.linear && plan.scales[d] != 1.0f;
    for (int64_t x = 0; x < plan.out_dims[d]; ++x) {
      const float source = SourceCoordinate(plan, x, d, in_dims[d]);
      if (!tap.interpolated) {
        tap.low.push_back(plan.linear ? std::min(x, in_dims[d] - 1) : NearestIndex(plan, source, d, in_dims[d]));
        tap.high.push_back(tap.low.back());
        tap.t.push_back(0.0f);
        continue;
      }
      const float clamped = std::min(std::max(source, 0.0f), static_cast<float>(in_dims[d] - 1));
      const auto low = static_cast<int64_t>(std::floor(clamped));
      tap.low.push_back(low);
      tap.high.push_back(std::min(low + 1, in_dims[d] - 1));
      tap.t.push_back(clamped - static_cast<float>(low));
    }
  }
  return taps;
}

template <typename T>
absl::StatusOr<Tensor> ApplyResize(const Tensor& x, const ResizePlan& plan) {
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(plan.out_dims, "the resized output"));
  const std::vector<int64_t>& in_dims = x.dims();
  const size_t rank = in_dims.size();
  const std::vector<Taps> taps = TapsOf(plan, in_dims);
  std::vector<size_t> interpolated;
  for (size_t d = 0; d < rank; ++d) {
    if (taps[d].interpolated) interpolated.push_back(d);
  }
  const std::vector<T> in = ReadAs<T>(x);
  std::vector<T> out(static_cast<size_t>(count));
  std::vector<int64_t> o(rank, 0), at(rank);
  const size_t corners = size_t{1} << interpolated.size();
  for (int64_t p = 0; p < count; ++p) {
    T sum = 0;
    for (size_t corner = 0; corner < corners; ++corner) {
      T weight = 1;
      for (size_t d = 0; d < rank; ++d) at[d] = taps[d].low[o[d]];
      for (size_t j = 0; j < interpolated.size(); ++j) {
        const size_t d = interpolated[j];
        const bool high = ((corner >> (interpolated.size() - 1 - j)) & 1) != 0;
        const auto t = static_cast<T>(taps[d].t[o[d]]);
        at[d] = high ? taps[d].high[o[d]] : taps[d].low[o[d]];
        weight *= high ? t : T{1} - t;
      }
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) offset = offset * in_dims[d] + at[d];
      sum = corners == 1 ? in[offset] : sum + in[offset] * weight;
    }
    out[p] = sum;
    for (size_t d = rank; d-- > 0;) {
      if (++o[d] < plan.out_dims[d]) break;
      o[d] = 0;
    }
  }
  return WriteAs<T>(x.type(), plan.out_dims, out);
}

absl::Status SetScales(ResizePlan& plan, const Tensor& x, std::vector<float> scales) {
  if (scales.size() != x.dims().size()) {
    return absl::InvalidArgumentError(StrCat("scales has ", scales.size(), " values for ", Describe(x)));
  }
  plan.out_dims.clear();
  for (size_t d = 0; d < scales.size(); ++d) {
    if (!(scales[d] > 0.0f)) return absl::InvalidArgumentError(StrCat("scale ", scales[d], " is not positive"));
    plan.out_dims.push_back(static_cast<int64_t>(std::floor(static_cast<float>(x.dims()[d]) * scales[d])));
  }
  plan.scales = std::move(scales);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> FloatValues(const Tensor& t, absl::string_view what) {
  if (t.type() != onnx::TensorProto::FLOAT || t.rank() != 1) {
    return absl::InvalidArgumentError(StrCat(what, " must be a 1-D float tensor, got ", Describe(t)));
  }
  return ReadAs<float>(t);
}

absl::Status SetMode(ResizePlan& plan, const std::string& mode) {
  const std::string lower = absl::AsciiStrToLower(mode);
  if (lower == "nearest") return absl::OkStatus();
  if (lower == "linear" || lower == "bilinear") {
    plan.linear = true;
    return absl::OkStatus();
  }
  return absl::UnimplementedError(StrCat("mode '", mode, "' (the runner resizes nearest and linear)"));
}

absl::StatusOr<Outputs> RunUpsample(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ResizePlan plan;
  ASSIGN_OR_RETURN(const std::string mode, StringAttributeOr(ctx.node, "mode", "nearest"));
  RETURN_IF_ERROR(SetMode(plan, mode));
  std::vector<float> scales;
  if (ctx.opset >= kUpsampleScalesInputOpset) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
    ASSIGN_OR_RETURN(const Tensor* scales_tensor, RequiredInput(ctx, 1, "scales"));
    ASSIGN_OR_RETURN(scales, FloatValues(*scales_tensor, "scales"));
  } else if (ctx.opset >= kUpsampleScalesAttributeOpset) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    ASSIGN_OR_RETURN(const std::optional<std::vector<float>> attr, FloatsAttribute(ctx.node, "scales"));
    if (!attr) return absl::InvalidArgumentError("attribute 'scales' is missing");
    scales = *attr;
  } else {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    ASSIGN_OR_RETURN(const std::optional<float> height, FloatAttribute(ctx.node, "height_scale"));
    ASSIGN_OR_RETURN(const std::optional<float> width, FloatAttribute(ctx.node, "width_scale"));
    if (!height || !width || x->rank() != 4) {
      return absl::InvalidArgumentError("Upsample-1 takes NCHW and attributes height_scale and width_scale");
    }
    scales = {1.0f, 1.0f, *height, *width};
  }
  RETURN_IF_ERROR(SetScales(plan, *x, scales));
  return Single(VisitNumeric(x->type(), "Upsample", [&](auto tag) { return ApplyResize<decltype(tag)>(*x, plan); }));
}

// Resize-11/13's scales or sizes, whichever is given (a present but empty tensor counts as absent).
absl::Status ResizeTarget(const KernelContext& ctx, const Tensor& x, ResizePlan& plan) {
  const Tensor* scales = ctx.Input(2);
  const Tensor* sizes = ctx.Input(3);
  if (scales != nullptr && scales->element_count() == 0) scales = nullptr;
  if (sizes != nullptr && sizes->element_count() == 0) sizes = nullptr;
  if ((scales == nullptr) == (sizes == nullptr)) {
    return absl::InvalidArgumentError("exactly one of scales and sizes must be given");
  }
  if (scales != nullptr) {
    ASSIGN_OR_RETURN(std::vector<float> values, FloatValues(*scales, "scales"));
    return SetScales(plan, x, std::move(values));
  }
  ASSIGN_OR_RETURN(plan.out_dims, sizes->ToInt64s("sizes"));
  if (plan.out_dims.size() != x.dims().size()) {
    return absl::InvalidArgumentError(StrCat("sizes ", DimsString(plan.out_dims), " do not fit ", Describe(x)));
  }
  for (size_t d = 0; d < plan.out_dims.size(); ++d) {
    if (plan.out_dims[d] < 0) return absl::InvalidArgumentError(StrCat("sizes ", DimsString(plan.out_dims)));
    plan.scales.push_back(static_cast<float>(plan.out_dims[d]) / static_cast<float>(x.dims()[d]));
  }
  return absl::OkStatus();
}

absl::StatusOr<Outputs> RunResize(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ResizePlan plan;
  ASSIGN_OR_RETURN(const std::string mode, StringAttributeOr(ctx.node, "mode", "nearest"));
  RETURN_IF_ERROR(SetMode(plan, mode));
  if (ctx.opset < kResizeModesOpset) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
    ASSIGN_OR_RETURN(const Tensor* scales, RequiredInput(ctx, 1, "scales"));
    ASSIGN_OR_RETURN(std::vector<float> values, FloatValues(*scales, "scales"));
    RETURN_IF_ERROR(SetScales(plan, *x, std::move(values)));
  } else {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 4));
    ASSIGN_OR_RETURN(plan.transform, StringAttributeOr(ctx.node, "coordinate_transformation_mode", "half_pixel"));
    ASSIGN_OR_RETURN(plan.nearest_mode, StringAttributeOr(ctx.node, "nearest_mode", "round_prefer_floor"));
    const std::vector<std::string> transforms = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                                 "tf_half_pixel_for_nn"};
    if (std::find(transforms.begin(), transforms.end(), plan.transform) == transforms.end()) {
      return absl::UnimplementedError(StrCat("coordinate_transformation_mode '", plan.transform, "'"));
    }
    const std::vector<std::string> roundings = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    if (std::find(roundings.begin(), roundings.end(), plan.nearest_mode) == roundings.end()) {
      return absl::InvalidArgumentError(StrCat("nearest_mode '", plan.nearest_mode, "' is unknown"));
    }
    RETURN_IF_ERROR(ResizeTarget(ctx, *x, plan));
  }
  return Single(VisitNumeric(x->type(), "Resize", [&](auto tag) { return ApplyResize<decltype(tag)>(*x, plan); }));
}

}  // namespace

void AddResizeKernels(KernelTable& table) {
  table["Upsample"] = RunUpsample;
  table["Resize"] = RunResize;
}

}  // namespace onnx_legalize
