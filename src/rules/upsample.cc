// Upsample in a model of opset 10 or later, where ONNX deprecated it for Resize: onnx's checker and ONNX Runtime
// refuse it there ("Op registered for Upsample is deprecated in domain_version of 10"), though exporters of
// 2019 (PyTorch 1.1 at opset 10) still wrote it. Below 10 it is a standard op, and the opset move's adapter
// makes it a Resize. Upsample-9/10: Y[i] = X[source(i)] per dim, output dim floor(dim * scale), the source
// coordinate i / scale (in float, "asymmetric"); nearest takes its floor, linear interpolates between the two
// neighbours, clamped at the last. The spec asks scales >= 1.
//
//   y = Upsample<mode>(x, scales)        (or, written at 10 the way Upsample-7 was, a `scales` attribute)
//   at opset 10  -> y = Resize-10<mode>(x, scales)              Resize-10 is Upsample renamed
//   at opset 11+ -> y = Resize<mode, coordinate_transformation_mode = asymmetric,
//                              nearest_mode = floor>(x, roi, scales)     roi: an empty float tensor (unused)
// ONNX Runtime computes both with one kernel (its Upsample class), so the result is its Upsample's bit for bit.
// A linear Upsample never folds: the reference sums its corners in an order of its own, not ONNX Runtime's.
//
// And Upsample in a model of opset 1-6: Upsample-1, experimental, the one experimental schema onnx still holds.
// PyTorch 0.3 wrote it for nn.Upsample; ONNX Runtime ("Could not find an implementation for Upsample(1)") and
// onnx-tensorflow from 1.3 run none, and onnx's adapter to opset 7 carries mode 'bilinear' over, which
// Upsample-7 refuses. Its NCHW input grows by height_scale and width_scale, which are Upsample-7's scales
// [1, 1, height_scale, width_scale] (onnx's adapter says so), mode nearest or bilinear (Upsample-7's linear):
//
//   y = Upsample-1<height_scale, width_scale, mode>(x)
//   at opset 7-8 -> y = Upsample-7<scales = [1, 1, h, w], mode>(x)        standard from opset 7
//   at opset 9   -> y = Upsample-9<mode>(x, scales)                       scales: [1, 1, h, w] as an input
//   at 10+       -> the Resize above
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

// Upsample-1 is experimental below 7, where Upsample-7 makes it standard; Upsample-9 takes its scales as an input.
constexpr int64_t kStandardUpsample = 7;
constexpr int64_t kUpsampleScalesInput = 9;
// Upsample is deprecated from 10, where Resize-10 is Upsample renamed.
constexpr int64_t kResize = 10;
// Resize-11 has the coordinate_transformation_mode and nearest_mode that say what Upsample meant.
constexpr int64_t kResizeWithModes = 11;
// Resize-13 takes an empty roi name; 11 and 12 need the input.
constexpr int64_t kResizeOptionalRoi = 13;

bool IsFloatType(DataType type) {
  return type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE;
}

struct UpsampleSpec {
  bool linear = false;
  std::vector<float> scales;  // empty when they are computed at run time
};

// Whether the mode interpolates: `linear` names the mode that does (Upsample-1's bilinear, Upsample-7's linear).
absl::StatusOr<bool> InterpolatesByMode(const RuleNode& node, const char* linear) {
  std::string mode = "nearest";
  if (const onnx::AttributeProto* attribute = FindAttribute(*node.node, "mode")) {
    if (attribute->type() != onnx::AttributeProto::STRING) return Invalid(node, "attribute 'mode' is not a string");
    mode = attribute->s();
  }
  if (mode != "nearest" && mode != linear) {
    return Invalid(node, "mode '", mode, "' is none of ",
                   node.opset < kStandardUpsample ? "Upsample-1's" : "Upsample's", " (nearest, ", linear, ")");
  }
  return mode == linear;
}

// `spec` once its scales are checked: each finite and at least 1, one per dim of the input where its rank is known.
absl::StatusOr<UpsampleSpec> CheckedScales(const RuleNode& node, UpsampleSpec spec) {
  for (float scale : spec.scales) {
    if (!(scale >= 1.0f) || !std::isfinite(scale)) {
      return Invalid(node, "scale ", scale, " is not a finite value of at least 1, which Upsample requires");
    }
  }
  const auto& dims = node.inputs[0].type.dims;
  if (!spec.scales.empty() && dims.has_value() && dims->size() != spec.scales.size()) {
    return Invalid(node, spec.scales.size(), " scales for input '", node.inputs[0].name, "' of rank ", dims->size());
  }
  return spec;
}

// The mode and scales, checked against the old spec and against the input they scale: what Parse returns, and what
// OutputType reads of a node not yet parsed. Upsample-1's two scales are Upsample-7's of an NCHW input.
absl::StatusOr<UpsampleSpec> SpecOf(const RuleNode& node) {
  UpsampleSpec spec;
  if (node.opset < kStandardUpsample) {
    ASSIGN_OR_RETURN(spec.linear, InterpolatesByMode(node, "bilinear"));
    ASSIGN_OR_RETURN(const float height, FloatAttribute(node, "height_scale", std::nullopt));
    ASSIGN_OR_RETURN(const float width, FloatAttribute(node, "width_scale", std::nullopt));
    spec.scales = {1.0f, 1.0f, height, width};
    const auto& dims = node.inputs[0].type.dims;
    if (dims.has_value() && dims->size() != 4) {
      return Invalid(node, "input '", node.inputs[0].name, "' has rank ", dims->size(),
                     "; Upsample-1 takes an NCHW input of rank 4");
    }
    return CheckedScales(node, std::move(spec));
  }
  ASSIGN_OR_RETURN(spec.linear, InterpolatesByMode(node, "linear"));
  if (node.inputs.size() == 2) {
    if (FindAttribute(*node.node, "scales") != nullptr) {
      return Invalid(node, "has both a scales input and a scales attribute");
    }
    const RuleInput& scales = node.inputs[1];
    if (scales.type.elem_type != 0 && scales.type.elem_type != onnx::TensorProto::FLOAT) {
      return Invalid(node, "scales '", scales.name, "' is ", DataTypeName(scales.type.elem_type), ", not float");
    }
    if (scales.constant != nullptr) spec.scales = FloatsOf(*scales.constant);
  } else {
    ASSIGN_OR_RETURN(spec.scales, FloatsAttribute(node, "scales", /*required=*/true));
  }
  return CheckedScales(node, std::move(spec));
}

// Per output index of one dim: the two source indices and the second's weight (nearest: one index, weight 0).
struct Taps {
  std::vector<int64_t> low, high;
  std::vector<float> weight;
};

Taps TapsOf(int64_t in, int64_t out, float scale, bool interpolate) {
  Taps taps;
  for (int64_t i = 0; i < out; ++i) {
    const float source = static_cast<float>(i) / scale;
    if (!interpolate) {
      const int64_t index = std::min(static_cast<int64_t>(std::floor(source)), in - 1);
      taps.low.push_back(index);
      taps.high.push_back(index);
      taps.weight.push_back(0.0f);
      continue;
    }
    const float clamped = std::min(source, static_cast<float>(in - 1));
    const auto low = static_cast<int64_t>(std::floor(clamped));
    taps.low.push_back(low);
    taps.high.push_back(std::min(low + 1, in - 1));
    taps.weight.push_back(clamped - static_cast<float>(low));
  }
  return taps;
}

// Linear: the sum over the 2^k corners of the k interpolated dims (the first of them the most significant bit
// of the corner's number) of each corner's value times the product of its weights, from 0, in T.
template <typename T>
std::vector<T> Resample(const std::vector<T>& in, const std::vector<int64_t>& in_dims,
                        const std::vector<int64_t>& out_dims, const std::vector<Taps>& taps,
                        const std::vector<size_t>& interpolated) {
  const size_t rank = in_dims.size();
  // A scalar is its own resample. Taken apart because GCC 12, following a rank of 0 into the loops below, warns of
  // freeing a pointer at a nonzero offset inside std::vector (-Wfree-nonheap-object).
  if (rank == 0) return in;
  int64_t count = 1;
  for (int64_t d : out_dims) count *= d;
  std::vector<T> out(static_cast<size_t>(count));
  std::vector<int64_t> index(rank, 0), at(rank, 0);
  const size_t corners = size_t{1} << interpolated.size();
  for (int64_t p = 0; p < count; ++p) {
    T sum = 0;
    for (size_t corner = 0; corner < corners; ++corner) {
      T weight = 1;
      for (size_t d = 0; d < rank; ++d) at[d] = taps[d].low[static_cast<size_t>(index[d])];
      for (size_t j = 0; j < interpolated.size(); ++j) {
        const size_t d = interpolated[j];
        const bool high = ((corner >> (interpolated.size() - 1 - j)) & 1) != 0;
        const auto t = static_cast<T>(taps[d].weight[static_cast<size_t>(index[d])]);
        at[d] = high ? taps[d].high[static_cast<size_t>(index[d])] : at[d];
        weight *= high ? t : T{1} - t;
      }
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) offset = offset * in_dims[d] + at[d];
      sum = corners == 1 ? in[static_cast<size_t>(offset)] : sum + in[static_cast<size_t>(offset)] * weight;
    }
    out[static_cast<size_t>(p)] = sum;
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// Nearest copies elements of any type: their bytes.
Tensor CopyNearest(const Tensor& x, const std::vector<int64_t>& out_dims, const std::vector<Taps>& taps) {
  const size_t rank = out_dims.size();
  const auto size = static_cast<size_t>(ElementSize(x.type()));
  int64_t count = 1;
  for (int64_t d : out_dims) count *= d;
  std::string bytes(static_cast<size_t>(count) * size, '\0');
  std::vector<int64_t> index(rank, 0);
  for (int64_t p = 0; p < count; ++p) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset = offset * x.dims()[d] + taps[d].low[static_cast<size_t>(index[d])];
    std::memcpy(bytes.data() + static_cast<size_t>(p) * size, x.bytes().data() + static_cast<size_t>(offset) * size,
                size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
  return Tensor::FromBytes(x.type(), out_dims, std::move(bytes)).value();
}

class UpsampleRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "Upsample"; }

  // Experimental below 7 (Upsample-1), deprecated from 10. Below 7, a node written with a later Upsample's scales
  // is no Upsample-1: a model without imports that holds one means opset 7 or later (era/opset_imports.cc).
  bool IsRemovedAt(const onnx::NodeProto& node, int64_t opset) const override {
    if (opset >= kResize) return true;
    return opset < kStandardUpsample && node.input_size() < 2 && FindAttribute(node, "scales") == nullptr;
  }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    if (node.opset < kStandardUpsample) {
      RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"mode", "height_scale", "width_scale"}));
    } else {
      RETURN_IF_ERROR(CheckSignature(node, 1, 2, 1, {"mode", "scales"}));
    }
    ASSIGN_OR_RETURN(UpsampleSpec spec, SpecOf(node));
    return spec;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    const DataType type = node.inputs[0].type.elem_type;
    if (node.opset < kStandardUpsample && type != 0 && !IsFloatType(type)) {
      return Invalid(node, "input '", node.inputs[0].name, "' is ", DataTypeName(type),
                     "; Upsample-1 takes float16, float or double");
    }
    if (node.attributes<UpsampleSpec>().linear) {
      RETURN_IF_ERROR(FloatInputType(node, 0).status());
    } else if (type != 0 && ElementSize(type) == 0) {
      return Invalid(node, "input '", node.inputs[0].name, "' is ", DataTypeName(type), ", which it cannot copy");
    }
    // Upsample-1 becomes the standard Upsample; Resize exists at every opset where Upsample is deprecated.
    return std::max(node.opset, kStandardUpsample);
  }

  // A nearest Upsample of a constant, its scales known while planning (the attribute or a constant input),
  // folds; its output grows by the product of the scales.
  std::optional<int64_t> FoldedBytes(const ParsedNode& node) const override {
    const auto& spec = node.attributes<UpsampleSpec>();
    if (spec.linear || spec.scales.empty() || node.inputs[0].constant == nullptr) return std::nullopt;
    double bytes = static_cast<double>(node.inputs[0].constant->bytes().size());
    for (float scale : spec.scales) bytes *= scale;
    return bytes >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(bytes);
  }

  ValueType OutputType(const RuleNode& node) const override {
    ValueType type = node.inputs[0].type;
    const absl::StatusOr<UpsampleSpec> spec = SpecOf(node);
    if (!type.dims.has_value()) return type;
    for (size_t d = 0; d < type.dims->size(); ++d) {
      int64_t& dim = (*type.dims)[d];
      const bool known = spec.ok() && d < spec->scales.size() && dim >= 0;
      dim = known ? static_cast<int64_t>(std::floor(static_cast<float>(dim) * spec->scales[d])) : -1;
    }
    return type;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    const auto& spec = node.attributes<UpsampleSpec>();
    const std::string& output = node.node->output(0);
    Replacement replacement;
    if (opset < kUpsampleScalesInput) return StandardUpsample(node, "", std::move(replacement), became);
    std::string scales = node.inputs.size() == 2 ? node.node->input(1) : std::string();
    if (scales.empty()) {
      scales = names.Fresh(output + "_scales");
      replacement.constants.emplace_back(scales, FromFloats({static_cast<int64_t>(spec.scales.size())}, spec.scales));
    }
    if (opset < kResize) return StandardUpsample(node, scales, std::move(replacement), became);
    onnx::NodeProto resize;
    if (opset < kResizeWithModes) {
      resize = MakeNode("Resize", {node.node->input(0), scales}, {output});
      became = "Resize-10";
    } else {
      std::string roi;
      if (opset < kResizeOptionalRoi) {
        roi = names.Fresh(output + "_roi");
        replacement.constants.emplace_back(roi, FromFloats({0}, {}));
      }
      resize = MakeNode("Resize", {node.node->input(0), roi, scales}, {output});
      AddStringAttribute(resize, "coordinate_transformation_mode", "asymmetric");
      if (!spec.linear) AddStringAttribute(resize, "nearest_mode", "floor");
      became = absl::StrCat("Resize-", opset >= kResizeOptionalRoi ? 13 : 11, " (asymmetric",
                            spec.linear ? ")" : ", floor)");
    }
    AddStringAttribute(resize, "mode", spec.linear ? "linear" : "nearest");
    replacement.nodes.push_back(std::move(resize));
    return replacement;
  }

  // Upsample-1 as the standard Upsample: at opset 7-8 Upsample-7, its scales an attribute (`scales` ""), at 9
  // Upsample-9, its scales the input `scales` names.
  static Replacement StandardUpsample(const ParsedNode& node, const std::string& scales, Replacement replacement,
                                      std::string& became) {
    const auto& spec = node.attributes<UpsampleSpec>();
    onnx::NodeProto upsample;
    if (scales.empty()) {
      upsample = MakeNode("Upsample", {node.node->input(0)}, {node.node->output(0)});
      AddFloatsAttribute(upsample, "scales", spec.scales);
      became = "Upsample-7";
    } else {
      upsample = MakeNode("Upsample", {node.node->input(0), scales}, {node.node->output(0)});
      became = "Upsample-9";
    }
    AddStringAttribute(upsample, "mode", spec.linear ? "linear" : "nearest");
    replacement.nodes.push_back(std::move(upsample));
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto& spec = node.attributes<UpsampleSpec>();
    const Tensor& x = *inputs[0];
    std::vector<float> scales = spec.scales;
    if (inputs.size() == 2 && inputs[1] != nullptr) scales = FloatsOf(*inputs[1]);
    if (scales.size() != x.dims().size()) {
      return Invalid(node, scales.size(), " scales for an input of rank ", x.rank());
    }
    std::vector<int64_t> out_dims;
    std::vector<Taps> taps;
    std::vector<size_t> interpolated;
    for (size_t d = 0; d < scales.size(); ++d) {
      if (!(scales[d] >= 1.0f)) return Invalid(node, "scale ", scales[d], " is below 1");
      out_dims.push_back(static_cast<int64_t>(std::floor(static_cast<float>(x.dims()[d]) * scales[d])));
      const bool interpolate = spec.linear && scales[d] != 1.0f;
      taps.push_back(TapsOf(x.dims()[d], out_dims.back(), scales[d], interpolate));
      if (interpolate) interpolated.push_back(d);
    }
    std::vector<Tensor> result;
    if (!spec.linear) {
      result.push_back(CopyNearest(x, out_dims, taps));
    } else if (x.type() == onnx::TensorProto::FLOAT) {
      result.push_back(FromFloats(out_dims, Resample(FloatsOf(x), x.dims(), out_dims, taps, interpolated)));
    } else {
      result.push_back(FromDoubleValues(out_dims, Resample(DoublesOf(x), x.dims(), out_dims, taps, interpolated)));
    }
    return result;
  }

  // Small images grown by the node's own scales (or 2 where they are computed), and the scales themselves.
  absl::StatusOr<std::vector<Tensor>> TrialInputs(const ParsedNode& node, TrialRandom& random) const override {
    const auto& spec = node.attributes<UpsampleSpec>();
    std::vector<Tensor> inputs;
    if (node.inputs[0].constant != nullptr) {
      inputs.push_back(node.inputs[0].constant->Clone());
    } else {
      const int64_t rank = spec.scales.empty() ? 4 : static_cast<int64_t>(spec.scales.size());
      std::vector<int64_t> dims = TrialDims(node.inputs[0].type, rank, random);
      for (int64_t& d : dims) d = std::min<int64_t>(d, 4);
      const DataType type =
          node.inputs[0].type.elem_type != 0 ? node.inputs[0].type.elem_type : onnx::TensorProto::FLOAT;
      if (type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE) {
        ASSIGN_OR_RETURN(Tensor data, random.SpecialFloats(type, dims));
        inputs.push_back(std::move(data));
      } else {
        ASSIGN_OR_RETURN(Tensor data, Tensor::Zeros(type, dims));
        for (char& byte : data.mutable_bytes()) byte = static_cast<char>(random.Uniform(0, 1));
        inputs.push_back(std::move(data));
      }
    }
    if (node.inputs.size() == 2) {
      if (node.inputs[1].constant != nullptr) {
        inputs.push_back(node.inputs[1].constant->Clone());
      } else {
        const std::vector<float> drawn(static_cast<size_t>(inputs[0].rank()), 2.0f);
        inputs.push_back(FromFloats({inputs[0].rank()}, drawn));
      }
    }
    return inputs;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeUpsampleRule() { return std::make_unique<UpsampleRule>(); }

}  // namespace onnx_legalize::rules
