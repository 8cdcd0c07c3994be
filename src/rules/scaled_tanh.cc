// ScaledTanh (experimental, removed in ONNX 1.5): output = alpha * tanh(beta * input) (alpha and beta
// required: onnx 1.4's schema gives them no default, and ONNX Runtime refuses a node without them).
//
//   y = ScaledTanh<alpha, beta>(x)
//   -> x_scaled = Mul(x, beta)           alpha, beta: scalar constants of x's type
//      t = Tanh(x_scaled)
//      y = Mul(t, alpha)
// The same operations in the same order; exact wherever Tanh is the same function (the evaluator's and
// the reference's are both the C library's). From opset 7 (broadcasting).
#include <cmath>

#include "rules/registry.h"
#include "rules/rule_support.h"
#include "status_macros.h"

namespace onnx_legalize::rules {
namespace {

class ScaledTanhRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "ScaledTanh"; }

  absl::StatusOr<int64_t> MinOpset(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"alpha", "beta"}));
    RETURN_IF_ERROR(FloatAttribute(node, "alpha", std::nullopt).status());
    RETURN_IF_ERROR(FloatAttribute(node, "beta", std::nullopt).status());
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    return 7;
  }

  absl::StatusOr<Replacement> Replace(const RuleNode& node, int64_t, NameSource& names,
                                      std::string& became) const override {
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    ASSIGN_OR_RETURN(const float alpha, FloatAttribute(node, "alpha", std::nullopt));
    ASSIGN_OR_RETURN(const float beta, FloatAttribute(node, "beta", std::nullopt));
    const std::string& output = node.node->output(0);
    Replacement replacement;
    const std::string alpha_name = names.Fresh(output + "_alpha");
    const std::string beta_name = names.Fresh(output + "_beta");
    const std::string scaled = names.Fresh(output + "_scaled_input");
    const std::string tanh = names.Fresh(output + "_tanh");
    replacement.constants.emplace_back(alpha_name, Filled(type, {}, alpha));
    replacement.constants.emplace_back(beta_name, Filled(type, {}, beta));
    replacement.nodes.push_back(MakeNode("Mul", {node.node->input(0), beta_name}, {scaled}));
    replacement.nodes.push_back(MakeNode("Tanh", {scaled}, {tanh}));
    replacement.nodes.push_back(MakeNode("Mul", {tanh, alpha_name}, {output}));
    became = "Mul + Tanh + Mul";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const RuleNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    ASSIGN_OR_RETURN(const float alpha, FloatAttribute(node, "alpha", std::nullopt));
    ASSIGN_OR_RETURN(const float beta, FloatAttribute(node, "beta", std::nullopt));
    const Tensor& x = *inputs[0];
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      std::vector<float> values = FloatsOf(x);
      for (float& v : values) v = alpha * std::tanh(beta * v);
      result.push_back(FromFloats(x.dims(), values));
    } else {
      std::vector<double> values = DoublesOf(x);
      for (double& v : values) v = double{alpha} * std::tanh(double{beta} * v);
      result.push_back(FromDoubleValues(x.dims(), values));
    }
    return result;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeScaledTanhRule() { return std::make_unique<ScaledTanhRule>(); }

}  // namespace onnx_legalize::rules
