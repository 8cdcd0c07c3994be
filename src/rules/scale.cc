// Scale (experimental, removed in ONNX 1.5): output = scale * input, elementwise (scale 1.0).
//
//   y = Scale<scale>(x)  ->  y = Mul(x, scale)     scale: a scalar constant of x's type
// One multiplication, as the old kernel did: exact. From opset 7 (broadcasting).
#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

struct ScaleAttributes {
  float scale = 1.0f;
};

class ScaleRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "Scale"; }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"scale"}));
    ScaleAttributes attributes;
    ASSIGN_OR_RETURN(attributes.scale, FloatAttribute(node, "scale", 1.0f));
    return attributes;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    return 7;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t, NameSource& names,
                                      std::string& became) const override {
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    const float scale = node.attributes<ScaleAttributes>().scale;
    const std::string& output = node.node->output(0);
    Replacement replacement;
    const std::string scale_name = names.Fresh(output + "_scale");
    replacement.constants.emplace_back(scale_name, Filled(type, {}, scale));
    replacement.nodes.push_back(MakeNode("Mul", {node.node->input(0), scale_name}, {output}));
    became = "Mul";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const float scale = node.attributes<ScaleAttributes>().scale;
    const Tensor& x = *inputs[0];
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      std::vector<float> values = FloatsOf(x);
      for (float& v : values) v = scale * v;
      result.push_back(FromFloats(x.dims(), values));
    } else {
      std::vector<double> values = DoublesOf(x);
      for (double& v : values) v = double{scale} * v;
      result.push_back(FromDoubleValues(x.dims(), values));
    }
    return result;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeScaleRule() { return std::make_unique<ScaleRule>(); }

}  // namespace onnx_legalize::rules
