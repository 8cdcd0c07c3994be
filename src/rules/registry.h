// The removed-op rules, one per op ONNX 1.5 removed (DynamicSlice has a pass of its own, which predates
// them: rules/dynamic_slice.h). Adding an op: a rule file in rules/, its test, and one line in registry.cc.
#ifndef ONNX_LEGALIZE_SRC_RULES_REGISTRY_H_
#define ONNX_LEGALIZE_SRC_RULES_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "onnx/onnx_pb.h"
#include "rules/removed_op_rule.h"

namespace onnx_legalize {

// The rule for `node` (default domain, spelled "" or "ai.onnx") in a model importing default opset
// `opset`, or null when the node is no removed op there.
const RemovedOpRule* FindRemovedOpRule(const onnx::NodeProto& node, int64_t opset);

// True for a removed op (of some rule, at whichever opset) whose output keeps its first input's element type
// and rank (RemovedOpRule::KeepsRank).
bool IsRankKeepingRemovedOp(const onnx::NodeProto& node);

// True when some rule has this op type, at whichever opset: the node may be a removed op, and onnx's
// tools (which have no schema for it) must not see it as it is.
bool IsRemovedOpType(const onnx::NodeProto& node);

// The op types of every rule, in the registry's order.
std::vector<const char*> RemovedOpTypes();

namespace rules {
std::unique_ptr<RemovedOpRule> MakeImageScalerRule();
std::unique_ptr<RemovedOpRule> MakeCropRule();
std::unique_ptr<RemovedOpRule> MakeAffineRule();
std::unique_ptr<RemovedOpRule> MakeScaleRule();
std::unique_ptr<RemovedOpRule> MakeScaledTanhRule();
std::unique_ptr<RemovedOpRule> MakeParametricSoftplusRule();
std::unique_ptr<RemovedOpRule> MakeThresholdedReluRule();
std::unique_ptr<RemovedOpRule> MakeMeanVarianceNormalizationRule();
std::unique_ptr<RemovedOpRule> MakeConstantFillRule();
std::unique_ptr<RemovedOpRule> MakeGivenTensorFillRule();
std::unique_ptr<RemovedOpRule> MakeFullyConnectedRule();
std::unique_ptr<RemovedOpRule> MakeLegacyPaddingRule();
std::unique_ptr<RemovedOpRule> MakeUpsampleRule();
}  // namespace rules

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_REGISTRY_H_
