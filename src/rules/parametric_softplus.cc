// ParametricSoftplus (experimental, removed in ONNX 1.5): Y = alpha * ln(exp(beta * X) + 1), alpha and beta
// required. Becomes Mul(beta), Softplus, Mul(alpha) (scaled_unary_rule.h).
// The old text's formula overflows past beta * x > 88 (float): exp gives inf. Softplus computes the same
// function without overflowing, and so does the reference here: z + ln(1 + exp(-z)) for z > 0, else
// ln(1 + exp(z)), each with log1p so that tiny results keep their digits. (ONNX Runtime's ParametricSoftplus
// rounded results below 2^-24 to 0; its Softplus keeps them: measured, tests/differential.)
#include <cmath>

#include "rules/registry.h"
#include "rules/scaled_unary_rule.h"

namespace onnx_legalize::rules {
namespace {

template <typename T>
T SoftplusReference(T z) {
  if (std::isnan(z)) return z;
  if (z > T{0}) return z + std::log1p(std::exp(-z));
  return std::log1p(std::exp(z));
}

class ParametricSoftplusRule final : public ScaledUnaryRule {
 public:
  const char* op_type() const override { return "ParametricSoftplus"; }

 protected:
  const char* StandardOp() const override { return "Softplus"; }
  float Function(float z) const override { return SoftplusReference(z); }
  double Function(double z) const override { return SoftplusReference(z); }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeParametricSoftplusRule() { return std::make_unique<ParametricSoftplusRule>(); }

}  // namespace onnx_legalize::rules
