// The shape ScaledTanh and ParametricSoftplus share: y = alpha * f(beta * x), alpha and beta required
// (onnx 1.4's schema gives them no default, and ONNX Runtime refuses a node without them).
//
//   y = Op<alpha, beta>(x)
//   -> x_scaled = Mul(x, beta)       alpha, beta: scalar constants of x's type
//      f_x = F(x_scaled)             F: the standard op of the same function (Tanh, Softplus)
//      y = Mul(f_x, alpha)
// The same operations in the same order as the reference, so the replacement is exact wherever F is the
// same function. From opset 7 (broadcasting).
#ifndef ONNX_LEGALIZE_SRC_RULES_SCALED_UNARY_RULE_H_
#define ONNX_LEGALIZE_SRC_RULES_SCALED_UNARY_RULE_H_

#include "core/status_macros.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {

struct ScaledUnaryAttributes {
  float alpha = 0.0f;
  float beta = 0.0f;
};

class ScaledUnaryRule : public RemovedOpRule {
 public:
  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"alpha", "beta"}));
    ScaledUnaryAttributes attributes;
    ASSIGN_OR_RETURN(attributes.alpha, FloatAttribute(node, "alpha", std::nullopt));
    ASSIGN_OR_RETURN(attributes.beta, FloatAttribute(node, "beta", std::nullopt));
    return attributes;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    return 7;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t, NameSource& names,
                                      std::string& became) const override {
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    const auto& [alpha, beta] = node.attributes<ScaledUnaryAttributes>();
    const std::string& output = node.node->output(0);
    const std::string alpha_name = names.Fresh(output + "_alpha");
    const std::string beta_name = names.Fresh(output + "_beta");
    const std::string scaled = names.Fresh(output + "_scaled_input");
    const std::string unary = names.Fresh(absl::StrCat(output, "_", StandardOp()));
    Replacement replacement;
    replacement.constants.emplace_back(alpha_name, Filled(type, {}, alpha));
    replacement.constants.emplace_back(beta_name, Filled(type, {}, beta));
    replacement.nodes.push_back(MakeNode("Mul", {node.node->input(0), beta_name}, {scaled}));
    replacement.nodes.push_back(MakeNode(StandardOp(), {scaled}, {unary}));
    replacement.nodes.push_back(MakeNode("Mul", {unary, alpha_name}, {output}));
    became = absl::StrCat("Mul + ", StandardOp(), " + Mul");
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto& [alpha, beta] = node.attributes<ScaledUnaryAttributes>();
    const Tensor& x = *inputs[0];
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      std::vector<float> values = FloatsOf(x);
      for (float& v : values) v = alpha * Function(beta * v);
      result.push_back(FromFloats(x.dims(), values));
    } else {
      std::vector<double> values = DoublesOf(x);
      for (double& v : values) v = double{alpha} * Function(double{beta} * v);
      result.push_back(FromDoubleValues(x.dims(), values));
    }
    return result;
  }

 protected:
  // The standard op that computes f.
  virtual const char* StandardOp() const = 0;
  // f itself, as the old op's text defines it, in the element type.
  virtual float Function(float z) const = 0;
  virtual double Function(double z) const = 0;
};

}  // namespace onnx_legalize::rules

#endif  // ONNX_LEGALIZE_SRC_RULES_SCALED_UNARY_RULE_H_
