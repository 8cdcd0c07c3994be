#include "rules/removed_op_plan.h"

#include "graph/labels.h"

namespace onnx_legalize {

RuleNode RemovedOpChange::AsRuleNode() const {
  RuleNode rule_node;
  rule_node.node = &node;
  rule_node.label = InGraph(NodeLabel(node), graph_path);
  rule_node.opset = opset;
  rule_node.inputs = inputs;
  return rule_node;
}

ParsedNode RemovedOpChange::AsParsedNode() const { return ParsedNode{AsRuleNode(), &attributes}; }

}  // namespace onnx_legalize
