// The plan of the removed-op rules for one model: what each removed node becomes (Fold | Rewrite), with what
// its rule saw. Made by the planner (pass/removed_ops_pass.h), proved by verification
// (verify/removed_ops_verify.h), written by ApplyRemovedOps: it lives on this floor so that both read it
// without one including the other.
#ifndef ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_PLAN_H_
#define ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_PLAN_H_

#include <any>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "graph/graph_locator.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/report.h"
#include "rules/removed_op_rule.h"

namespace onnx_legalize {

struct RemovedOpChange {
  GraphLocator graph;
  std::string graph_path;
  onnx::NodeProto node;  // the removed node as the model held it (the model changes before ApplyRemovedOps)
  const RemovedOpRule* rule = nullptr;
  int64_t opset = 0;              // the default opset the model imports
  std::vector<RuleInput> inputs;  // constants point into `owned`
  std::vector<std::unique_ptr<Tensor>> owned;
  std::any attributes;  // what its rule parsed from the node (RemovedOpRule::Parse), for every method after
  Action action = Action::kRewritten;
  int64_t min_opset = 0;       // kRewritten: the lowest opset its replacement is written at
  std::vector<Tensor> folded;  // kFolded: the node's value, one per output
  std::string detail;          // why this action
  std::string became;          // what it became: "initializer", "Mul + Add", ...
  std::string verification;

  // The node as its rule sees it (pointing into this change): before it is parsed, and after.
  RuleNode AsRuleNode() const;
  ParsedNode AsParsedNode() const;
};

struct RemovedOpPlan {
  std::vector<RemovedOpChange> changes;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_REMOVED_OP_PLAN_H_
