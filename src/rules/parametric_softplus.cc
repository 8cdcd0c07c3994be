// ParametricSoftplus (experimental, removed in ONNX 1.5): Y = alpha * ln(exp(beta * X) + 1) (alpha and beta
// required: onnx 1.4's schema gives them no default, and ONNX Runtime refuses a node without them).
//
//   y = ParametricSoftplus<alpha, beta>(x)
//   -> x_scaled = Mul(x, beta)            alpha, beta: scalar constants of x's type
//      s = Softplus(x_scaled)
//      y = Mul(s, alpha)
// The old text's formula overflows past beta * x > 88 (float): exp gives inf. Softplus computes the same
// function without overflowing, and so does the reference here: z + ln(1 + exp(-z)) for z > 0, else
// ln(1 + exp(z)), each with log1p so that tiny results keep their digits. From opset 7 (broadcasting).
#include <cmath>

#include "rules/registry.h"
#include "rules/rule_support.h"
#include "status_macros.h"

namespace onnx_legalize::rules {
namespace {

template <typename T>
T SoftplusReference(T z) {
  if (std::isnan(z)) return z;
  if (z > T{0}) return z + std::log1p(std::exp(-z));
  return std::log1p(std::exp(z));
}

class ParametricSoftplusRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "ParametricSoftplus"; }

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
    const std::string softplus = names.Fresh(output + "_softplus");
    replacement.constants.emplace_back(alpha_name, Filled(type, {}, alpha));
    replacement.constants.emplace_back(beta_name, Filled(type, {}, beta));
    replacement.nodes.push_back(MakeNode("Mul", {node.node->input(0), beta_name}, {scaled}));
    replacement.nodes.push_back(MakeNode("Softplus", {scaled}, {softplus}));
    replacement.nodes.push_back(MakeNode("Mul", {softplus, alpha_name}, {output}));
    became = "Mul + Softplus + Mul";
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
      for (float& v : values) v = alpha * SoftplusReference(beta * v);
      result.push_back(FromFloats(x.dims(), values));
    } else {
      std::vector<double> values = DoublesOf(x);
      for (double& v : values) v = double{alpha} * SoftplusReference(double{beta} * v);
      result.push_back(FromDoubleValues(x.dims(), values));
    }
    return result;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeParametricSoftplusRule() { return std::make_unique<ParametricSoftplusRule>(); }

}  // namespace onnx_legalize::rules
