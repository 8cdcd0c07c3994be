// ScaledTanh (experimental, removed in ONNX 1.5): output = alpha * tanh(beta * input), alpha and beta
// required. Becomes Mul(beta), Tanh, Mul(alpha) (scaled_unary_rule.h). The reference's tanh is the C
// library's, as the evaluator's Tanh is; ONNX Runtime's ScaledTanh used another approximation than its
// Tanh op, within 8 ULPs of it outside denormal results (measured, tests/differential).
#include <cmath>

#include "rules/registry.h"
#include "rules/scaled_unary_rule.h"

namespace onnx_legalize::rules {
namespace {

class ScaledTanhRule final : public ScaledUnaryRule {
 public:
  const char* op_type() const override { return "ScaledTanh"; }

 protected:
  const char* StandardOp() const override { return "Tanh"; }
  float Function(float z) const override { return std::tanh(z); }
  double Function(double z) const override { return std::tanh(z); }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeScaledTanhRule() { return std::make_unique<ScaledTanhRule>(); }

}  // namespace onnx_legalize::rules
