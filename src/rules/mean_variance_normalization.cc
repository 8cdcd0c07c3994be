// MeanVarianceNormalization-1 (experimental, removed in ONNX 1.5; MVN-9 is a different op): Y = X - mean,
// divided by the standard deviation when normalize_variance is 1 (the default).
//
// The old text says only "across channels or not". What users' runtimes computed (ONNX Runtime 1.30, the
// reference runtime of the old ops; measured, docs of tests/differential) is exact enough to copy:
// statistics per channel over N, H and W (across_channels 0, the default), or over all of N, C, H, W
// (across_channels 1); mean = sum / count in the element type; d = X - mean; Y = d / sqrt(mean(d * d)),
// with no epsilon (a constant group gives 0 / 0 = NaN there too).
//
//   y = MVN-1<across_channels = 1, normalize_variance = 1>(x)
//   -> mean = ReduceMean<axes = [0,1,2,3]>(x); d = Sub(x, mean)         (normalize_variance 0: y = d)
//      variance = ReduceMean<axes>(Mul(d, d)); y = Div(d, Sqrt(variance))
//   across_channels 0: the same over axes [1,2,3] between Transpose<perm = [1,0,2,3]> of x and of the result,
//   so that each channel's values are summed in the order ONNX Runtime summed them (a direct reduction
//   over [0,2,3] differs from it by millions of ULPs near 0, measured).
// From opset 18 ReduceMean takes its axes as an input: a constant beside the replacement.
// MVN-9 is not used at opset 9 and later: its definition adds 1e-9 to the deviation and computes the
// variance as E[X^2] - E[X]^2, which are not the old op's numbers.
#include <cmath>

#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

constexpr int64_t kFirstReduceMeanWithAxesInput = 18;

// Each 0 or 1: the only values the old text gives a meaning.
struct MvnAttributes {
  bool across_channels = false;
  bool normalize_variance = true;
};

class MeanVarianceNormalizationRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "MeanVarianceNormalization"; }

  bool IsRemovedAt(const onnx::NodeProto& node, int64_t opset) const override {
    return opset < 9 || FindAttribute(node, "across_channels") != nullptr ||
           FindAttribute(node, "normalize_variance") != nullptr;
  }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"across_channels", "normalize_variance"}));
    ASSIGN_OR_RETURN(const int64_t across_channels, IntAttribute(node, "across_channels", 0));
    ASSIGN_OR_RETURN(const int64_t normalize_variance, IntAttribute(node, "normalize_variance", 1));
    if (across_channels != 0 && across_channels != 1) {
      return Invalid(node, "across_channels is ", across_channels, "; it is 0 or 1");
    }
    if (normalize_variance != 0 && normalize_variance != 1) {
      return Invalid(node, "normalize_variance is ", normalize_variance, "; it is 0 or 1");
    }
    return MvnAttributes{across_channels == 1, normalize_variance == 1};
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    const auto& dims = node.inputs[0].type.dims;
    if (dims.has_value() && dims->size() != 4) {
      return Invalid(node, "input '", node.inputs[0].name, "' has rank ", dims->size(),
                     "; MeanVarianceNormalization-1 takes NCHW data of rank 4");
    }
    return 7;  // ReduceMean with keepdims and numpy broadcasting
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    const auto [across_channels, normalize_variance] = node.attributes<MvnAttributes>();
    const std::string& output = node.node->output(0);
    Replacement replacement;
    std::vector<std::string> ops;
    auto add = [&](onnx::NodeProto node) {
      ops.push_back(node.op_type());
      replacement.nodes.push_back(std::move(node));
    };
    auto transpose = [&](const std::string& input, const std::string& result) {
      onnx::NodeProto node = MakeNode("Transpose", {input}, {result});
      AddIntsAttribute(node, "perm", {1, 0, 2, 3});
      return node;
    };
    std::string x = node.node->input(0);
    if (!across_channels) {
      const std::string transposed = names.Fresh(output + "_channels_first");
      add(transpose(x, transposed));
      x = transposed;
    }
    const std::vector<int64_t> axes =
        across_channels ? std::vector<int64_t>{0, 1, 2, 3} : std::vector<int64_t>{1, 2, 3};
    std::string axes_input;  // ReduceMean-18's second input; before 18, its attribute
    if (opset >= kFirstReduceMeanWithAxesInput) {
      axes_input = names.Fresh(output + "_axes");
      replacement.constants.emplace_back(axes_input, Tensor::FromInt64s(axes));
    }
    auto reduce_mean = [&](const std::string& input, const std::string& result) {
      onnx::NodeProto reduce = axes_input.empty() ? MakeNode("ReduceMean", {input}, {result})
                                                  : MakeNode("ReduceMean", {input, axes_input}, {result});
      if (axes_input.empty()) AddIntsAttribute(reduce, "axes", axes);
      AddIntAttribute(reduce, "keepdims", 1);
      return reduce;
    };
    const std::string mean = names.Fresh(output + "_mean");
    add(reduce_mean(x, mean));
    const bool transposed = !across_channels;
    const std::string centered = normalize_variance || transposed ? names.Fresh(output + "_centered") : output;
    add(MakeNode("Sub", {x, mean}, {centered}));
    std::string result = centered;
    if (normalize_variance) {
      const std::string square = names.Fresh(output + "_square");
      const std::string variance = names.Fresh(output + "_variance");
      const std::string deviation = names.Fresh(output + "_deviation");
      result = transposed ? names.Fresh(output + "_normalized") : output;
      add(MakeNode("Mul", {centered, centered}, {square}));
      add(reduce_mean(square, variance));
      add(MakeNode("Sqrt", {variance}, {deviation}));
      add(MakeNode("Div", {centered, deviation}, {result}));
    }
    if (transposed) add(transpose(result, output));
    became = absl::StrJoin(ops, " + ");
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto [across_channels, normalize_variance] = node.attributes<MvnAttributes>();
    const Tensor& x = *inputs[0];
    if (x.rank() != 4) return Invalid(node, "input of rank ", x.rank(), "; MVN-1 takes rank 4");
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      result.push_back(
          FromFloats(x.dims(), Normalize<float>(FloatsOf(x), x.dims(), across_channels, normalize_variance)));
    } else {
      result.push_back(
          FromDoubleValues(x.dims(), Normalize<double>(DoublesOf(x), x.dims(), across_channels, normalize_variance)));
    }
    return result;
  }

 private:
  // The indices of one group's elements in summation order: n, then (c,) h, w, as ONNX Runtime reads them.
  static std::vector<std::vector<size_t>> Groups(const std::vector<int64_t>& dims, bool across_channels) {
    const int64_t n = dims[0], c = dims[1], plane = dims[2] * dims[3];
    std::vector<std::vector<size_t>> groups(static_cast<size_t>(across_channels ? 1 : c));
    for (int64_t image = 0; image < n; ++image) {
      for (int64_t channel = 0; channel < c; ++channel) {
        auto& group = groups[static_cast<size_t>(across_channels ? 0 : channel)];
        for (int64_t i = 0; i < plane; ++i) group.push_back(static_cast<size_t>((image * c + channel) * plane + i));
      }
    }
    return groups;
  }

  template <typename T>
  static std::vector<T> Normalize(std::vector<T> values, const std::vector<int64_t>& dims, bool across_channels,
                                  bool normalize_variance) {
    for (const std::vector<size_t>& group : Groups(dims, across_channels)) {
      if (group.empty()) continue;
      const T count = static_cast<T>(group.size());
      T sum = 0;
      for (size_t i : group) sum += values[i];
      const T mean = sum / count;
      T squares = 0;
      for (size_t i : group) {
        const T centered = values[i] - mean;
        squares += centered * centered;
      }
      const T deviation = std::sqrt(squares / count);
      for (size_t i : group) {
        const T centered = values[i] - mean;
        values[i] = normalize_variance ? centered / deviation : centered;
      }
    }
    return values;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeMeanVarianceNormalizationRule() {
  return std::make_unique<MeanVarianceNormalizationRule>();
}

}  // namespace onnx_legalize::rules
