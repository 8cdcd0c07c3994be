// Affine (experimental, removed in ONNX 1.5): Y = alpha * X + beta, elementwise (alpha 1.0, beta 0.0).
//
//   y = Affine<alpha, beta>(x)
//   -> y_scaled = Mul(x, alpha)     alpha, beta: scalar constants of x's type
//      y = Add(y_scaled, beta)
// The old kernel's two roundings in its order, so the replacement is exact; from opset 7 (broadcasting).
#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

struct AffineAttributes {
  float alpha = 1.0f;
  float beta = 0.0f;
};

class AffineRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "Affine"; }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"alpha", "beta"}));
    AffineAttributes attributes;
    ASSIGN_OR_RETURN(attributes.alpha, FloatAttribute(node, "alpha", 1.0f));
    ASSIGN_OR_RETURN(attributes.beta, FloatAttribute(node, "beta", 0.0f));
    return attributes;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    return 7;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t, NameSource& names,
                                      std::string& became) const override {
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    const auto& [alpha, beta] = node.attributes<AffineAttributes>();
    const std::string& output = node.node->output(0);
    Replacement replacement;
    const std::string alpha_name = names.Fresh(output + "_alpha");
    const std::string beta_name = names.Fresh(output + "_beta");
    const std::string scaled = names.Fresh(output + "_scaled");
    replacement.constants.emplace_back(alpha_name, Filled(type, {}, alpha));
    replacement.constants.emplace_back(beta_name, Filled(type, {}, beta));
    replacement.nodes.push_back(MakeNode("Mul", {node.node->input(0), alpha_name}, {scaled}));
    replacement.nodes.push_back(MakeNode("Add", {scaled, beta_name}, {output}));
    became = "Mul + Add";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto& [alpha, beta] = node.attributes<AffineAttributes>();
    const Tensor& x = *inputs[0];
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      std::vector<float> values = FloatsOf(x);
      for (float& v : values) v = alpha * v + beta;
      result.push_back(FromFloats(x.dims(), values));
    } else {
      std::vector<double> values = DoublesOf(x);
      for (double& v : values) v = double{alpha} * v + double{beta};
      result.push_back(FromDoubleValues(x.dims(), values));
    }
    return result;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeAffineRule() { return std::make_unique<AffineRule>(); }

}  // namespace onnx_legalize::rules
