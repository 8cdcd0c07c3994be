#include "verify/removed_op_kernels.h"

#include <any>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/removed_op_rule.h"

namespace onnx_legalize {

bool RemovedOpKernels::Handles(const onnx::NodeProto& node, int64_t /*opset*/) const {
  return FindRemovedOpRule(node, written_at_) != nullptr;
}

absl::StatusOr<std::vector<Tensor>> RemovedOpKernels::Run(const onnx::NodeProto& node, int64_t /*opset*/,
                                                          const std::vector<const Tensor*>& inputs) const {
  const RemovedOpRule* rule = FindRemovedOpRule(node, written_at_);
  if (rule == nullptr) return absl::InternalError(absl::StrCat(node.op_type(), " is no removed op"));
  RuleNode rule_node;
  rule_node.node = &node;
  rule_node.label = absl::StrCat(node.op_type(), " '", node.name(), "'");
  rule_node.opset = written_at_;
  for (int i = 0; i < node.input_size(); ++i) {
    RuleInput input;
    input.name = node.input(i);
    input.constant = inputs[static_cast<size_t>(i)];
    // The rules read what they need of an input from its type (LegacyPadding its height and width).
    if (input.constant != nullptr) input.type = ValueType{input.constant->type(), input.constant->dims()};
    rule_node.inputs.push_back(std::move(input));
  }
  if (!inputs.empty() && inputs[0] == nullptr && node.op_type() != "ConstantFill") {
    return absl::InvalidArgumentError("its input 0 is missing");
  }
  ASSIGN_OR_RETURN(const std::any attributes, rule->Parse(rule_node));
  return rule->Reference(ParsedNode{rule_node, &attributes}, inputs);
}

}  // namespace onnx_legalize
