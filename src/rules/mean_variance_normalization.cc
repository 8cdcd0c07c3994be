// MeanVarianceNormalization-1 (experimental, removed in ONNX 1.5; MVN-9 is a different op): normalizes NCHW
// data per (n, c) over H, W (across_channels 0, the default) or per n over C, H, W (across_channels 1):
// Y = X - E[X], divided by the standard deviation when normalize_variance is 1 (the default). The
// statistics are those of MVN-9's definition: variance E[X^2] - E[X]^2, and Y = (X - E[X]) /
// (sqrt(variance) + 1e-9).
//
//   y = MVN-1<across_channels, normalize_variance>(x)
//   at opset >= 9, normalize_variance 1 -> y = MeanVarianceNormalization-9<axes>(x)   axes [2,3] or [1,2,3]
//   otherwise -> mean = ReduceMean<axes>(x)
//                diff = Sub(x, mean)                      (normalize_variance 0: y = diff)
//                mean_sq = ReduceMean<axes>(Mul(x, x)); var = Sub(mean_sq, Mul(mean, mean))
//                y = Div(diff, Add(Sqrt(var), epsilon))
// A node at opset >= 9 is MVN-1 only when it still carries the old attributes, which MVN-9 rejects.
#include "rules/registry.h"
#include "rules/rule_support.h"
#include "status_macros.h"

namespace onnx_legalize::rules {
namespace {

constexpr double kEpsilon = 1e-9;

class MeanVarianceNormalizationRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "MeanVarianceNormalization"; }

  bool IsRemovedAt(const onnx::NodeProto& node, int64_t opset) const override {
    return opset < 9 || FindAttribute(node, "across_channels") != nullptr ||
           FindAttribute(node, "normalize_variance") != nullptr;
  }

  absl::StatusOr<int64_t> MinOpset(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"across_channels", "normalize_variance"}));
    RETURN_IF_ERROR(Flags(node).status());
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    const auto& dims = node.inputs[0].type.dims;
    if (dims.has_value() && dims->size() != 4) {
      return Invalid(node, "input '", node.inputs[0].name, "' has rank ", dims->size(),
                     "; MeanVarianceNormalization-1 takes NCHW data of rank 4");
    }
    return 1;
  }

  absl::StatusOr<Replacement> Replace(const RuleNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    ASSIGN_OR_RETURN(const auto flags, Flags(node));
    const auto [across_channels, normalize_variance] = flags;
    const std::vector<int64_t> axes = across_channels ? std::vector<int64_t>{1, 2, 3} : std::vector<int64_t>{2, 3};
    const std::string& x = node.node->input(0);
    const std::string& output = node.node->output(0);
    Replacement replacement;
    if (opset >= 9 && normalize_variance) {
      onnx::NodeProto mvn = MakeNode("MeanVarianceNormalization", {x}, {output});
      AddIntsAttribute(mvn, "axes", axes);
      replacement.nodes.push_back(std::move(mvn));
      became = "MeanVarianceNormalization-9";
      return replacement;
    }
    auto reduce_mean = [&](const std::string& input, const std::string& result) {
      onnx::NodeProto node = MakeNode("ReduceMean", {input}, {result});
      AddIntsAttribute(node, "axes", axes);
      AddIntAttribute(node, "keepdims", 1);
      return node;
    };
    const std::string mean = names.Fresh(output + "_mean");
    replacement.nodes.push_back(reduce_mean(x, mean));
    if (!normalize_variance) {
      replacement.nodes.push_back(MakeNode("Sub", {x, mean}, {output}));
      became = "ReduceMean + Sub";
      return replacement;
    }
    const std::string diff = names.Fresh(output + "_centered");
    const std::string square = names.Fresh(output + "_square");
    const std::string mean_square = names.Fresh(output + "_mean_of_square");
    const std::string square_mean = names.Fresh(output + "_square_of_mean");
    const std::string variance = names.Fresh(output + "_variance");
    const std::string deviation = names.Fresh(output + "_deviation");
    const std::string epsilon = names.Fresh(output + "_epsilon");
    const std::string denominator = names.Fresh(output + "_denominator");
    replacement.constants.emplace_back(epsilon, Filled(type, {}, kEpsilon));
    replacement.nodes.push_back(MakeNode("Sub", {x, mean}, {diff}));
    replacement.nodes.push_back(MakeNode("Mul", {x, x}, {square}));
    replacement.nodes.push_back(reduce_mean(square, mean_square));
    replacement.nodes.push_back(MakeNode("Mul", {mean, mean}, {square_mean}));
    replacement.nodes.push_back(MakeNode("Sub", {mean_square, square_mean}, {variance}));
    replacement.nodes.push_back(MakeNode("Sqrt", {variance}, {deviation}));
    replacement.nodes.push_back(MakeNode("Add", {deviation, epsilon}, {denominator}));
    replacement.nodes.push_back(MakeNode("Div", {diff, denominator}, {output}));
    became = "ReduceMean + Sub + Mul + ReduceMean + Mul + Sub + Sqrt + Add + Div";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const RuleNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    ASSIGN_OR_RETURN(const auto flags, Flags(node));
    const Tensor& x = *inputs[0];
    if (x.rank() != 4) return Invalid(node, "input of rank ", x.rank(), "; MVN-1 takes rank 4");
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      result.push_back(FromFloats(x.dims(), Normalize<float>(FloatsOf(x), x.dims(), flags.first, flags.second)));
    } else {
      result.push_back(
          FromDoubleValues(x.dims(), Normalize<double>(DoublesOf(x), x.dims(), flags.first, flags.second)));
    }
    return result;
  }

 private:
  // Each group (an (n, c) plane, or an n's whole C x H x W block) is contiguous in NCHW order.
  template <typename T>
  static std::vector<T> Normalize(std::vector<T> values, const std::vector<int64_t>& dims, bool across_channels,
                                  bool normalize_variance) {
    const size_t group = static_cast<size_t>(dims[2] * dims[3] * (across_channels ? dims[1] : 1));
    if (group == 0) return values;
    for (size_t start = 0; start < values.size(); start += group) {
      T sum = 0, sum_of_squares = 0;
      for (size_t i = start; i < start + group; ++i) {
        sum += values[i];
        sum_of_squares += values[i] * values[i];
      }
      const T mean = sum / static_cast<T>(group);
      const T mean_of_squares = sum_of_squares / static_cast<T>(group);
      const T deviation = std::sqrt(mean_of_squares - mean * mean);
      for (size_t i = start; i < start + group; ++i) {
        const T centered = values[i] - mean;
        values[i] = normalize_variance ? centered / (deviation + static_cast<T>(kEpsilon)) : centered;
      }
    }
    return values;
  }

  // (across_channels, normalize_variance), each 0 or 1 as the old spec allows.
  static absl::StatusOr<std::pair<bool, bool>> Flags(const RuleNode& node) {
    ASSIGN_OR_RETURN(const int64_t across_channels, IntAttribute(node, "across_channels", 0));
    ASSIGN_OR_RETURN(const int64_t normalize_variance, IntAttribute(node, "normalize_variance", 1));
    if (across_channels != 0 && across_channels != 1) {
      return Invalid(node, "across_channels is ", across_channels, "; it is 0 or 1");
    }
    if (normalize_variance != 0 && normalize_variance != 1) {
      return Invalid(node, "normalize_variance is ", normalize_variance, "; it is 0 or 1");
    }
    return std::make_pair(across_channels == 1, normalize_variance == 1);
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeMeanVarianceNormalizationRule() {
  return std::make_unique<MeanVarianceNormalizationRule>();
}

}  // namespace onnx_legalize::rules
