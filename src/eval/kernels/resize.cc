// Upsample and Resize, nearest, (N-)linear and (N-)cubic. The coordinate arithmetic is in float, as the runtimes do it.
//
// Upsample-1: attributes height_scale, width_scale (NCHW), mode NEAREST or BILINEAR; Upsample-7: attribute
// scales, mode nearest or linear; Upsample-9: scales as input 1. Resize-10: scales as input 1. All of them map an
// output coordinate x to x / scale in the input ("asymmetric"); nearest then takes floor of it when the dim
// grows and ceil when it shrinks (the texts say neither; ONNX Runtime's reading).
// Resize-11/13: inputs X, roi, scales, sizes (scales or sizes); coordinate_transformation_mode half_pixel
// (default), pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn; nearest_mode
// round_prefer_floor (default), round_prefer_ceil, floor, ceil; mode cubic with cubic_coeff_a (-0.75) and
// exclude_outside (0); tf_crop_and_resize with input roi (each dim's start and end as fractions of its last
// index) and extrapolation_value (0) for the outputs whose coordinate falls outside the input.
// Output dims: floor(in * scale), or `sizes`.
// Resize-18 adds attribute axes (roi, scales and sizes then name those dims only; the others keep scale 1 and
// roi [0, 1]), keep_aspect_ratio_policy (stretch, the default, takes sizes as they are; not_larger and
// not_smaller take the least or greatest of sizes / in over the resized dims as every one's scale, in float,
// and round scale * in to the output dim, as ONNX Runtime and onnx's reference do) and antialias, which the
// runner does not implement and refuses when set. Resize-19 adds coordinate_transformation_mode
// half_pixel_symmetric: half_pixel moved so that the output's center maps to the input's when the output dim
// is not exactly in * scale.
//
// Linear interpolates each dim whose scale is not 1: a coordinate clamped to [0, in - 1] between its floor
// x0 and x0 + 1 (clamped), weights 1 - t and t; the corners are added in binary order (the first dim's low
// corner first), each value times the product of its weights.
//
// Cubic (Resize-11 on) interpolates each dim whose scale is not 1 from the four inputs around the unclamped
// coordinate x: floor(x) - 1 .. floor(x) + 2, read clamped to the edge, weighted by Keys' cubic convolution
// of t = x - floor(x) with a = cubic_coeff_a. exclude_outside gives the taps outside the input weight 0 and
// divides the others by their sum. The last dim is summed first, its result weighted into the dim before it,
// and so on outwards: a 2-D image sums each of four rows, then the four rows, as ONNX Runtime does.
#include <algorithm>
#include <array>
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
constexpr int64_t kResizeAxesOpset = 18;
constexpr int64_t kResizeSymmetricOpset = 19;

enum class Interpolation { kNearest, kLinear, kCubic };

struct ResizePlan {
  std::vector<int64_t> out_dims;
  std::vector<float> scales;
  Interpolation interpolation = Interpolation::kNearest;
  float cubic_coeff_a = -0.75f;
  bool exclude_outside = false;
  std::string transform = "asymmetric";
  std::string nearest_mode = "legacy";  // floor when growing, ceil when shrinking (Upsample, Resize-10)
  std::vector<float> roi;               // tf_crop_and_resize: the starts, then the ends
  float extrapolation_value = 0.0f;
};

bool Crops(const ResizePlan& plan) { return plan.transform == "tf_crop_and_resize"; }

// Whether dim d's output coordinates are not simply its input's: a scale other than 1, or a crop.
bool MovesCoordinates(const ResizePlan& plan, size_t d) {
  if (plan.scales[d] != 1.0f) return true;
  return Crops(plan) && (plan.roi[d] != 0.0f || plan.roi[plan.out_dims.size() + d] != 1.0f);
}

// A cropped output whose coordinate falls outside the input takes extrapolation_value.
bool Extrapolated(const ResizePlan& plan, float source, int64_t in) {
  return Crops(plan) && (source < 0.0f || source > static_cast<float>(in - 1));
}

float SourceCoordinate(const ResizePlan& plan, int64_t x, size_t d, int64_t in) {
  const float scale = plan.scales[d];
  const int64_t out = plan.out_dims[d];
  const auto xf = static_cast<float>(x);
  if (plan.transform == "half_pixel") return (xf + 0.5f) / scale - 0.5f;
  if (plan.transform == "half_pixel_symmetric") {
    // The text's steps in its order, as ONNX Runtime computes them: the offset in float, the last line in
    // double (its 0.5 is a double), rounded to float once.
    const auto length = static_cast<float>(in);
    const float adjustment = static_cast<float>(out) / (scale * length);
    const float offset = length / 2.0f * (1.0f - adjustment);
    return static_cast<float>(offset + (static_cast<double>(xf) + 0.5) / scale - 0.5);
  }
  if (plan.transform == "pytorch_half_pixel") return out > 1 ? (xf + 0.5f) / scale - 0.5f : 0.0f;
  if (plan.transform == "align_corners") {
    return out == 1 ? 0.0f : xf * static_cast<float>(in - 1) / static_cast<float>(out - 1);
  }
  if (plan.transform == "tf_half_pixel_for_nn") return (xf + 0.5f) / scale;
  if (Crops(plan)) {
    const float start = plan.roi[d], end = plan.roi[plan.out_dims.size() + d];
    const auto last = static_cast<float>(in - 1);
    return out > 1 ? start * last + xf * (end - start) * last / static_cast<float>(out - 1)
                   : 0.5f * (start + end) * last;
  }
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
  std::vector<bool> extrapolated;
  bool interpolated = false;
};

std::vector<Taps> TapsOf(const ResizePlan& plan, const std::vector<int64_t>& in_dims) {
  std::vector<Taps> taps(in_dims.size());
  for (size_t d = 0; d < in_dims.size(); ++d) {
    Taps& tap = taps[d];
    const bool linear = plan.interpolation == Interpolation::kLinear;
    tap.interpolated = linear && MovesCoordinates(plan, d);
    for (int64_t x = 0; x < plan.out_dims[d]; ++x) {
      const float source = SourceCoordinate(plan, x, d, in_dims[d]);
      tap.extrapolated.push_back(Extrapolated(plan, source, in_dims[d]));
      if (!tap.interpolated) {
        tap.low.push_back(linear ? std::min(x, in_dims[d] - 1) : NearestIndex(plan, source, d, in_dims[d]));
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

// Output position `o` advanced to the next in row-major order.
void NextPosition(std::vector<int64_t>& o, const std::vector<int64_t>& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++o[d] < dims[d]) return;
    o[d] = 0;
  }
}

template <typename AnyTaps>
bool AnyExtrapolated(const std::vector<AnyTaps>& taps, const std::vector<int64_t>& o) {
  for (size_t d = 0; d < taps.size(); ++d) {
    if (taps[d].extrapolated[static_cast<size_t>(o[d])]) return true;
  }
  return false;
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
    if (AnyExtrapolated(taps, o)) {
      out[p] = static_cast<T>(plan.extrapolation_value);
      NextPosition(o, plan.out_dims);
      continue;
    }
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
    NextPosition(o, plan.out_dims);
  }
  return WriteAs<T>(x.type(), plan.out_dims, out);
}

// Keys' cubic convolution weights of the four taps around a coordinate whose distance past its floor is `t`,
// in float as ONNX Runtime computes them (t + 1, 1 - t and 2 - t are each tap's distance).
std::array<float, 4> CubicWeights(float t, float a) {
  const float t0 = t + 1.0f, t2 = 1.0f - t, t3 = 2.0f - t;
  return {((a * t0 - 5 * a) * t0 + 8 * a) * t0 - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
          ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1, ((a * t3 - 5 * a) * t3 + 8 * a) * t3 - 4 * a};
}

// Per dim and output index: the four input indices (clamped to the edge), their weights and the sum the weights
// are divided by (1 but with exclude_outside), or, for a dim whose scale is 1, the one index it copies.
struct CubicTaps {
  std::vector<std::array<int64_t, 4>> index;
  std::vector<std::array<float, 4>> weight;
  std::vector<float> divisor;
  std::vector<bool> extrapolated;
  bool interpolated = false;
};

std::vector<CubicTaps> CubicTapsOf(const ResizePlan& plan, const std::vector<int64_t>& in_dims) {
  std::vector<CubicTaps> taps(in_dims.size());
  for (size_t d = 0; d < in_dims.size(); ++d) {
    CubicTaps& tap = taps[d];
    const int64_t in = in_dims[d];
    tap.interpolated = MovesCoordinates(plan, d);
    for (int64_t x = 0; x < plan.out_dims[d]; ++x) {
      const float source = SourceCoordinate(plan, x, d, in);
      tap.extrapolated.push_back(Extrapolated(plan, source, in));
      if (!tap.interpolated) {
        tap.index.push_back({std::min(x, in - 1), 0, 0, 0});
        tap.weight.push_back({1.0f, 0.0f, 0.0f, 0.0f});
        tap.divisor.push_back(1.0f);
        continue;
      }
      const float floor = std::floor(source);
      const auto first = static_cast<int64_t>(floor) - 1;
      std::array<float, 4> weight = CubicWeights(source - floor, plan.cubic_coeff_a);
      std::array<int64_t, 4> index{};
      float sum = 0.0f;
      for (int64_t k = 0; k < 4; ++k) {
        const int64_t at = first + k;
        if (plan.exclude_outside && (at < 0 || at >= in)) weight[k] = 0.0f;
        sum += weight[k];
        index[k] = std::min(std::max<int64_t>(at, 0), in - 1);
      }
      tap.index.push_back(index);
      tap.weight.push_back(weight);
      tap.divisor.push_back(plan.exclude_outside ? sum : 1.0f);
    }
  }
  return taps;
}

// The cubic interpolation of output position `o` over dims d.. of the input, at `offset` (the input's row-major
// offset of the indices chosen for dims ..d-1). `last` is the last interpolated dim. ONNX Runtime divides each
// weight by the divisor in the last dim and each weighted value in the dims before it; so does this, to give
// its bits (the divisor is 1 but with exclude_outside).
template <typename T>
T CubicSample(const T* in, const std::vector<int64_t>& in_dims, const std::vector<CubicTaps>& taps, size_t last,
              const std::vector<int64_t>& o, size_t d, int64_t offset) {
  if (d == in_dims.size()) return in[offset];
  const CubicTaps& tap = taps[d];
  const size_t at = static_cast<size_t>(o[d]);
  if (!tap.interpolated) return CubicSample(in, in_dims, taps, last, o, d + 1, offset * in_dims[d] + tap.index[at][0]);
  const auto divisor = static_cast<T>(tap.divisor[at]);
  T sum = 0;
  for (size_t k = 0; k < 4; ++k) {
    const T value = CubicSample(in, in_dims, taps, last, o, d + 1, offset * in_dims[d] + tap.index[at][k]);
    const auto weight = static_cast<T>(tap.weight[at][k]);
    sum += d == last ? weight / divisor * value : value * weight / divisor;
  }
  return sum;
}

template <typename T>
absl::StatusOr<Tensor> ApplyCubicResize(const Tensor& x, const ResizePlan& plan) {
  RETURN_IF_ERROR(CheckedOutputCount(plan.out_dims, "the resized output").status());
  const std::vector<CubicTaps> taps = CubicTapsOf(plan, x.dims());
  const ElementsAs<T> in(x);
  ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(x.type(), plan.out_dims));
  size_t last = 0;
  for (size_t d = 0; d < taps.size(); ++d) {
    if (taps[d].interpolated) last = d;
  }
  std::vector<int64_t> o(plan.out_dims.size(), 0);
  for (size_t p = 0; p < out.size(); ++p) {
    out[p] = AnyExtrapolated(taps, o) ? static_cast<T>(plan.extrapolation_value)
                                      : CubicSample(in.data(), x.dims(), taps, last, o, 0, 0);
    NextPosition(o, plan.out_dims);
  }
  return std::move(out).Finish();
}

// The input elements each output element reads: 2 per interpolated dim for linear, 4 for cubic, multiplied
// (a rank-8 linear resize reads 256 per output), 1 for nearest.
int64_t ReadsPerOutput(const ResizePlan& plan) {
  if (plan.interpolation == Interpolation::kNearest) return 1;
  const int64_t taps = plan.interpolation == Interpolation::kCubic ? 4 : 2;
  int64_t reads = 1;
  for (size_t d = 0; d < plan.out_dims.size(); ++d) {
    if (MovesCoordinates(plan, d)) reads = SaturatingMul(reads, taps);
  }
  return reads;
}

// Nearest and linear take every numeric type; cubic the floating ones (ONNX Runtime's cubic takes float alone).
absl::StatusOr<Outputs> Resized(const KernelContext& ctx, const Tensor& x, const ResizePlan& plan,
                                absl::string_view op) {
  // An empty dim has no element to read from: only `sizes` can ask for more of it.
  for (size_t d = 0; d < plan.out_dims.size(); ++d) {
    if (x.dims()[d] == 0 && plan.out_dims[d] > 0) {
      return absl::InvalidArgumentError(
          StrCat("dim ", d, " of ", Describe(x), " is empty; it cannot be resized to ", plan.out_dims[d]));
    }
  }
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(plan.out_dims, "the resized output"));
  RETURN_IF_ERROR(AffordWork(ctx, SaturatingMul(count, ReadsPerOutput(plan)), "the interpolation"));
  if (plan.interpolation == Interpolation::kCubic) {
    return Single(VisitFloating(x.type(), op, [&](auto tag) { return ApplyCubicResize<decltype(tag)>(x, plan); }));
  }
  return Single(VisitNumeric(x.type(), op, [&](auto tag) { return ApplyResize<decltype(tag)>(x, plan); }));
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

// `with_cubic`: Resize from opset 11 has mode cubic; Upsample and Resize-10 do not.
absl::Status SetMode(ResizePlan& plan, const std::string& mode, bool with_cubic) {
  const std::string lower = absl::AsciiStrToLower(mode);
  if (lower == "nearest") return absl::OkStatus();
  if (lower == "linear" || lower == "bilinear") {
    plan.interpolation = Interpolation::kLinear;
    return absl::OkStatus();
  }
  if (lower == "cubic" && with_cubic) {
    plan.interpolation = Interpolation::kCubic;
    return absl::OkStatus();
  }
  if (lower == "cubic") return absl::InvalidArgumentError("mode 'cubic' is Resize's only from opset 11");
  return absl::UnimplementedError(StrCat("mode '", mode, "' (the runner resizes nearest, linear and cubic)"));
}

absl::StatusOr<Outputs> RunUpsample(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ResizePlan plan;
  ASSIGN_OR_RETURN(const std::string mode, StringAttributeOr(ctx.node, "mode", "nearest"));
  RETURN_IF_ERROR(SetMode(plan, mode, /*with_cubic=*/false));
  std::vector<float> scales;
  if (ctx.OpsetAtLeast(kUpsampleScalesInputOpset)) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
    ASSIGN_OR_RETURN(const Tensor* scales_tensor, RequiredInput(ctx, 1, "scales"));
    ASSIGN_OR_RETURN(scales, FloatValues(*scales_tensor, "scales"));
  } else if (ctx.OpsetAtLeast(kUpsampleScalesAttributeOpset)) {
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
  return Resized(ctx, *x, plan, "Upsample");
}

// Resize-18's axes and keep_aspect_ratio_policy (before 18: every dim, stretch).
struct ResizeAxes {
  std::vector<int64_t> axes;  // non-negative, in the order the node names them
  bool named = false;         // by attribute axes, rather than every dim by default
  std::string policy = "stretch";
};

// How messages name the dims a node resizes: "float[1,3,4,4]", or "axes [2,3] of float[1,3,4,4]".
std::string ResizedDims(const ResizeAxes& axes, const Tensor& x) {
  return axes.named ? StrCat("axes ", DimsString(axes.axes), " of ", Describe(x)) : Describe(x);
}

absl::StatusOr<ResizeAxes> ReadResizeAxes(const KernelContext& ctx, const Tensor& x) {
  ResizeAxes result;
  if (!ctx.OpsetAtLeast(kResizeAxesOpset)) {
    for (const char* name : {"axes", "keep_aspect_ratio_policy", "antialias"}) {
      RETURN_IF_ERROR(RejectAttribute(ctx, name, "does not have (added at opset 18)"));
    }
  } else {
    ASSIGN_OR_RETURN(const int64_t antialias, IntAttributeOr(ctx.node, "antialias", 0));
    if (antialias != 0) {
      return absl::UnimplementedError(
          StrCat("attribute 'antialias' = ", antialias, " (the model runner resizes without an antialiasing filter)"));
    }
    ASSIGN_OR_RETURN(result.policy, StringAttributeOr(ctx.node, "keep_aspect_ratio_policy", "stretch"));
    if (result.policy != "stretch" && result.policy != "not_larger" && result.policy != "not_smaller") {
      return absl::InvalidArgumentError(
          StrCat("keep_aspect_ratio_policy '", result.policy, "' is none of stretch, not_larger, not_smaller"));
    }
    ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> axes, IntsAttribute(ctx.node, "axes"));
    if (axes) {
      ASSIGN_OR_RETURN(result.axes, NormalizeAxes(*axes, x.rank(), "axes"));
      result.named = true;
      return result;
    }
  }
  for (int64_t d = 0; d < x.rank(); ++d) result.axes.push_back(d);
  return result;
}

// `values` (one per axis) spread over every dim of `x`, `fallback` for the dims no axis names.
template <typename T>
absl::StatusOr<std::vector<T>> OverAllDims(const std::vector<T>& values, const ResizeAxes& axes, const Tensor& x,
                                           T fallback, absl::string_view what) {
  if (values.size() != axes.axes.size()) {
    return absl::InvalidArgumentError(StrCat(what, " has ", values.size(), " values for ", ResizedDims(axes, x)));
  }
  std::vector<T> all(x.dims().size(), fallback);
  for (size_t i = 0; i < values.size(); ++i) all[axes.axes[i]] = values[i];
  return all;
}

// not_larger / not_smaller: one scale for every resized dim, the least (greatest) of sizes / in, in float.
void KeepAspectRatio(const ResizeAxes& axes, const Tensor& x, const std::vector<int64_t>& sizes, ResizePlan& plan) {
  const bool not_larger = axes.policy == "not_larger";
  float scale = 0.0f;
  for (size_t i = 0; i < axes.axes.size(); ++i) {
    const float s = static_cast<float>(sizes[i]) / static_cast<float>(x.dims()[axes.axes[i]]);
    scale = i == 0 ? s : (not_larger ? std::min(scale, s) : std::max(scale, s));
  }
  plan.out_dims = x.dims();
  plan.scales.assign(x.dims().size(), 1.0f);
  for (const int64_t d : axes.axes) {
    plan.scales[d] = scale;
    plan.out_dims[d] = static_cast<int64_t>(std::round(scale * static_cast<float>(x.dims()[d])));
  }
}

// Resize-11's scales or sizes, whichever is given (a present but empty tensor counts as absent), for the dims
// Resize-18's axes name.
absl::Status ResizeTarget(const KernelContext& ctx, const Tensor& x, const ResizeAxes& axes, ResizePlan& plan) {
  const Tensor* scales = ctx.Input(2);
  const Tensor* sizes = ctx.Input(3);
  if (scales != nullptr && scales->element_count() == 0) scales = nullptr;
  if (sizes != nullptr && sizes->element_count() == 0) sizes = nullptr;
  if ((scales == nullptr) == (sizes == nullptr)) {
    return absl::InvalidArgumentError("exactly one of scales and sizes must be given");
  }
  if (scales != nullptr) {
    if (axes.policy != "stretch") {
      return absl::InvalidArgumentError(
          StrCat("keep_aspect_ratio_policy '", axes.policy, "' applies to sizes; the node gives scales"));
    }
    ASSIGN_OR_RETURN(std::vector<float> values, FloatValues(*scales, "scales"));
    ASSIGN_OR_RETURN(std::vector<float> all, OverAllDims<float>(values, axes, x, 1.0f, "scales"));
    return SetScales(plan, x, std::move(all));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> values, sizes->ToInt64s("sizes"));
  for (const int64_t size : values) {
    if (size < 0) return absl::InvalidArgumentError(StrCat("sizes ", DimsString(values), " has a negative size"));
  }
  ASSIGN_OR_RETURN(plan.out_dims, OverAllDims<int64_t>(values, axes, x, 0, "sizes"));
  if (axes.policy != "stretch") {
    KeepAspectRatio(axes, x, values, plan);
    return absl::OkStatus();
  }
  for (size_t d = 0; d < plan.out_dims.size(); ++d) {
    if (std::find(axes.axes.begin(), axes.axes.end(), static_cast<int64_t>(d)) == axes.axes.end()) {
      plan.out_dims[d] = x.dims()[d];
    }
    plan.scales.push_back(static_cast<float>(plan.out_dims[d]) / static_cast<float>(x.dims()[d]));
  }
  return absl::OkStatus();
}

// tf_crop_and_resize's roi (input 1): a start and an end per resized axis (every dim before Resize-18), of any
// floating type, read as float; a dim no axis names keeps [0, 1].
absl::Status SetRoi(const KernelContext& ctx, const Tensor& x, const ResizeAxes& axes, ResizePlan& plan) {
  ASSIGN_OR_RETURN(const Tensor* roi, RequiredInput(ctx, 1, "roi"));
  const auto count = static_cast<int64_t>(axes.axes.size());
  if (roi->rank() != 1 || roi->element_count() != 2 * count) {
    return absl::InvalidArgumentError(
        StrCat("roi ", Describe(*roi), " must hold a start and an end for each dim of ", ResizedDims(axes, x)));
  }
  ASSIGN_OR_RETURN(const std::vector<float> values,
                   VisitFloating(roi->type(), "roi", [&](auto tag) -> absl::StatusOr<std::vector<float>> {
                     const ElementsAs<decltype(tag)> elements(*roi);
                     return std::vector<float>(elements.begin(), elements.end());
                   }));
  ASSIGN_OR_RETURN(const std::vector<float> starts,
                   OverAllDims<float>({values.begin(), values.begin() + count}, axes, x, 0.0f, "roi's starts"));
  ASSIGN_OR_RETURN(const std::vector<float> ends,
                   OverAllDims<float>({values.begin() + count, values.end()}, axes, x, 1.0f, "roi's ends"));
  plan.roi = starts;
  plan.roi.insert(plan.roi.end(), ends.begin(), ends.end());
  return absl::OkStatus();
}

absl::StatusOr<Outputs> RunResize(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ResizePlan plan;
  ASSIGN_OR_RETURN(const std::string mode, StringAttributeOr(ctx.node, "mode", "nearest"));
  RETURN_IF_ERROR(SetMode(plan, mode, /*with_cubic=*/ctx.OpsetAtLeast(kResizeModesOpset)));
  if (!ctx.OpsetAtLeast(kResizeModesOpset)) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
    ASSIGN_OR_RETURN(const Tensor* scales, RequiredInput(ctx, 1, "scales"));
    ASSIGN_OR_RETURN(std::vector<float> values, FloatValues(*scales, "scales"));
    RETURN_IF_ERROR(SetScales(plan, *x, std::move(values)));
  } else {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 4));
    ASSIGN_OR_RETURN(plan.transform, StringAttributeOr(ctx.node, "coordinate_transformation_mode", "half_pixel"));
    ASSIGN_OR_RETURN(plan.nearest_mode, StringAttributeOr(ctx.node, "nearest_mode", "round_prefer_floor"));
    const std::vector<std::string> transforms = {"half_pixel", "pytorch_half_pixel",   "align_corners",
                                                 "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
    const bool symmetric = plan.transform == "half_pixel_symmetric";
    if (symmetric && !ctx.OpsetAtLeast(kResizeSymmetricOpset)) {
      return absl::InvalidArgumentError(
          "coordinate_transformation_mode 'half_pixel_symmetric' is Resize's from opset 19");
    }
    if (!symmetric && std::find(transforms.begin(), transforms.end(), plan.transform) == transforms.end()) {
      return absl::UnimplementedError(StrCat("coordinate_transformation_mode '", plan.transform, "'"));
    }
    const std::vector<std::string> roundings = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    if (std::find(roundings.begin(), roundings.end(), plan.nearest_mode) == roundings.end()) {
      return absl::InvalidArgumentError(StrCat("nearest_mode '", plan.nearest_mode, "' is unknown"));
    }
    ASSIGN_OR_RETURN(plan.cubic_coeff_a, FloatAttributeOr(ctx.node, "cubic_coeff_a", -0.75f));
    ASSIGN_OR_RETURN(const int64_t exclude_outside, IntAttributeOr(ctx.node, "exclude_outside", 0));
    plan.exclude_outside = exclude_outside != 0;
    ASSIGN_OR_RETURN(plan.extrapolation_value, FloatAttributeOr(ctx.node, "extrapolation_value", 0.0f));
    ASSIGN_OR_RETURN(const ResizeAxes axes, ReadResizeAxes(ctx, *x));
    RETURN_IF_ERROR(ResizeTarget(ctx, *x, axes, plan));
    if (Crops(plan)) RETURN_IF_ERROR(SetRoi(ctx, *x, axes, plan));
  }
  return Resized(ctx, *x, plan, "Resize");
}

}  // namespace

void AddResizeKernels(KernelTable& table) {
  table["Upsample"] = RunUpsample;
  table["Resize"] = RunResize;
}

}  // namespace onnx_legalize
