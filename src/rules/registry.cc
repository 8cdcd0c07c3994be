#include "rules/registry.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "graph/op_names.h"
#include "rules/float16_in_float.h"

namespace onnx_legalize {
namespace {

const std::vector<std::unique_ptr<RemovedOpRule>>& Rules() {
  static const auto* rules = [] {
    auto* list = new std::vector<std::unique_ptr<RemovedOpRule>>();
    // The ops that compute take float16 as Windows ML did, in float (rules/float16_in_float.h); Crop and
    // the fills only move or write data.
    list->push_back(rules::Float16InFloat(rules::MakeImageScalerRule()));
    list->push_back(rules::MakeCropRule());
    list->push_back(rules::Float16InFloat(rules::MakeAffineRule()));
    list->push_back(rules::Float16InFloat(rules::MakeScaleRule()));
    list->push_back(rules::Float16InFloat(rules::MakeScaledTanhRule()));
    list->push_back(rules::Float16InFloat(rules::MakeParametricSoftplusRule()));
    list->push_back(rules::Float16InFloat(rules::MakeThresholdedReluRule()));
    list->push_back(rules::Float16InFloat(rules::MakeMeanVarianceNormalizationRule()));
    list->push_back(rules::MakeConstantFillRule());
    list->push_back(rules::MakeGivenTensorFillRule());
    list->push_back(rules::Float16InFloat(rules::MakeFullyConnectedRule()));
    list->push_back(rules::Float16InFloat(rules::MakeLegacyPaddingRule()));
    list->push_back(rules::MakeUpsampleRule());
    return list;
  }();
  return *rules;
}

// The rules by op type: asked for every node of every model --check reads.
const std::unordered_map<std::string, const RemovedOpRule*>& RulesByOpType() {
  static const auto* by_op_type = [] {
    auto* map = new std::unordered_map<std::string, const RemovedOpRule*>();
    for (const auto& rule : Rules()) map->emplace(rule->op_type(), rule.get());
    return map;
  }();
  return *by_op_type;
}

const RemovedOpRule* RuleForOpType(const onnx::NodeProto& node) {
  const auto& by_op_type = RulesByOpType();
  auto it = by_op_type.find(node.op_type());
  if (it == by_op_type.end()) return nullptr;
  const std::string domain = it->second->domain();
  const bool in_domain = domain.empty() ? IsDefaultDomain(node.domain()) : node.domain() == domain;
  return in_domain ? it->second : nullptr;
}

}  // namespace

const RemovedOpRule* FindRemovedOpRule(const onnx::NodeProto& node, int64_t opset) {
  const RemovedOpRule* rule = RuleForOpType(node);
  return rule != nullptr && rule->IsRemovedAt(node, opset) ? rule : nullptr;
}

bool IsRemovedOpType(const onnx::NodeProto& node) { return RuleForOpType(node) != nullptr; }

std::vector<const char*> RemovedOpTypes() {
  std::vector<const char*> op_types;
  for (const auto& rule : Rules()) op_types.push_back(rule->op_type());
  return op_types;
}

bool IsRankKeepingRemovedOp(const onnx::NodeProto& node) {
  const RemovedOpRule* rule = RuleForOpType(node);
  return rule != nullptr && rule->KeepsRank();
}

}  // namespace onnx_legalize
