// ThresholdedRelu before opset 10 (experimental; ONNX 1.5 made it a standard op at 10): Y = X where
// X > alpha, else 0 (alpha 1.0). NaN gives 0, +inf stays, and -0.0 (when alpha < 0) stays -0.0.
//
//   y = ThresholdedRelu<alpha>(x)
//   at opset >= 10 -> y = ThresholdedRelu-10<alpha>(x)
//   at opset 9     -> above = Greater(x, alpha)         alpha, zero: scalar constants of x's type
//                     drop = Not(above)
//                     y = Where(drop, zero, x)
// Where picks x itself or a +0, so every bit is the old op's. x comes from Where's false branch: ONNX
// Runtime's Where turns a -0.0 taken from its true branch into +0.0 (measured), which Where(above, x, zero)
// would do to x = -0.0 when alpha < 0. The shorter x * Cast(x > alpha) is not exact either: 0 * inf and
// 0 * NaN are NaN, and 0 * (negative x) is -0. Where exists from opset 9, so a model below 9 moves to 9.
#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

struct ThresholdedReluAttributes {
  float alpha = 1.0f;
};

class ThresholdedReluRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "ThresholdedRelu"; }

  bool IsRemovedAt(const onnx::NodeProto&, int64_t opset) const override { return opset < 10; }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"alpha"}));
    ThresholdedReluAttributes attributes;
    ASSIGN_OR_RETURN(attributes.alpha, FloatAttribute(node, "alpha", 1.0f));
    return attributes;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    return 9;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    const float alpha = node.attributes<ThresholdedReluAttributes>().alpha;
    const std::string& output = node.node->output(0);
    Replacement replacement;
    if (opset >= 10) {
      onnx::NodeProto relu = MakeNode("ThresholdedRelu", {node.node->input(0)}, {output});
      AddFloatAttribute(relu, "alpha", alpha);
      replacement.nodes.push_back(std::move(relu));
      became = "ThresholdedRelu-10";
      return replacement;
    }
    const std::string alpha_name = names.Fresh(output + "_alpha");
    const std::string zero_name = names.Fresh(output + "_zero");
    const std::string above = names.Fresh(output + "_above");
    const std::string drop = names.Fresh(output + "_drop");
    replacement.constants.emplace_back(alpha_name, Filled(type, {}, alpha));
    replacement.constants.emplace_back(zero_name, Filled(type, {}, 0.0));
    replacement.nodes.push_back(MakeNode("Greater", {node.node->input(0), alpha_name}, {above}));
    replacement.nodes.push_back(MakeNode("Not", {above}, {drop}));
    replacement.nodes.push_back(MakeNode("Where", {drop, zero_name, node.node->input(0)}, {output}));
    became = "Greater + Not + Where";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const float alpha = node.attributes<ThresholdedReluAttributes>().alpha;
    const Tensor& x = *inputs[0];
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      std::vector<float> values = FloatsOf(x);
      for (float& v : values) v = v > alpha ? v : 0.0f;
      result.push_back(FromFloats(x.dims(), values));
    } else {
      std::vector<double> values = DoublesOf(x);
      for (double& v : values) v = v > double{alpha} ? v : 0.0;
      result.push_back(FromDoubleValues(x.dims(), values));
    }
    return result;
  }

  std::vector<double> TrialPivots(const ParsedNode& node) const override {
    return {node.attributes<ThresholdedReluAttributes>().alpha};
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeThresholdedReluRule() { return std::make_unique<ThresholdedReluRule>(); }

}  // namespace onnx_legalize::rules
