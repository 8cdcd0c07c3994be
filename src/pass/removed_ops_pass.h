// The removed-ops pass: every node of an op that ONNX 1.5 removed (other than DynamicSlice, which has a
// pass of its own) is folded or replaced by standard ops, by its rule (rules/registry.h).
//
// Plan, verify, apply, as the DynamicSlice pass does: planning reads the model and decides Fold | Rewrite
// for each node (or refuses it with a reason), and the lowest opset each rewrite needs; the caller picks one
// target opset for the whole model, verification runs each replacement against the rule's reference kernel,
// the opset upgrade passes the removed nodes through untouched, and applying writes the replacements at the
// target opset. Applying cannot fail.
//
//   Fold:    y = ImageScaler(W) with W constant  ->  initializer y (the reference kernel's value)
//   Rewrite: y = ImageScaler(x)                  ->  y_scaled = Mul(x, scale); y = Add(y_scaled, bias)
#ifndef ONNX_LEGALIZE_SRC_PASS_REMOVED_OPS_PASS_H_
#define ONNX_LEGALIZE_SRC_PASS_REMOVED_OPS_PASS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph_locator.h"
#include "graph/graph_scope.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/options.h"
#include "rules/fold_budget.h"
#include "rules/removed_op_plan.h"
#include "rules/removed_op_rule.h"
#include "upgrade/opset_upgrade.h"

namespace onnx_legalize {

// Plans the removed ops of one model (main graph and subgraphs at any depth), node by node, in the walk every
// planner shares (rules/typed_walk.h): Fold | Rewrite for each, or a refusal naming it. A node whose inputs are
// constants of its scope folds, whichever planner folded them (a DynamicSlice of a weight, scaled); its fold
// becomes a constant of the scope, for the nodes after it.
class RemovedOpPlanner {
 public:
  // FailedPrecondition naming every node, its graph and op when the model holds nodes no one can legalize: an
  // op of the default domain without a schema at the model's opset that is neither DynamicSlice nor a removed
  // op with a rule (ATen, GRUUnit, an op onnx never defined, ...), or a removed op in a model-local function.
  // Folds take from `budget`, shared with the model's other planners; `plan` is appended to. Both must outlive
  // the planner.
  static absl::StatusOr<RemovedOpPlanner> Start(const onnx::ModelProto& model, const Options& options,
                                                FoldBudget& budget, RemovedOpPlan& plan);

  // Plans `node` when a rule knows it. A removed node its rule refuses (attributes the old spec does not allow,
  // an element type it cannot verify) is InvalidArgument or FailedPrecondition naming it.
  absl::Status Visit(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator);

 private:
  RemovedOpPlanner(const Options& options, int64_t opset, FoldBudget& budget, RemovedOpPlan& plan)
      : options_(options), opset_(opset), budget_(&budget), plan_(&plan) {}

  absl::Status PlanNode(const onnx::NodeProto& node, const RemovedOpRule& rule, GraphScope& scope,
                        const GraphLocator& locator);
  ValueType TypeOf(const std::string& name, const GraphScope& scope) const;

  Options options_;  // a copy: the planner may outlive the caller's options
  int64_t opset_ = 0;
  FoldBudget* budget_;
  RemovedOpPlan* plan_;
  // The types of the outputs planned so far, which later removed ops read: onnx's inference has no schema for
  // a removed op.
  std::unordered_map<std::string, ValueType> planned_types_;
};

// The lowest default opset that expresses every rewrite of `plan`; 0 when it has none.
int64_t MinOpsetForRemovedOps(const RemovedOpPlan& plan);

// The removed ops the opset upgrade must pass through untouched (the rules' ops, at the opsets they apply
// to), for this pass to rewrite afterwards.
const PassThroughOps& RemovedOpsPassThrough();

// Writes the plan into `model`, whose default opset is already `target`, after a move that renamed `renamed`.
// Never fails for a plan made from this model (before its upgrade) and verified at `target`; a graph the plan
// names that is not there is Internal.
absl::Status ApplyRemovedOps(RemovedOpPlan& plan, onnx::ModelProto& model, int64_t target,
                             const RenamedOutputs& renamed = {});

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_PASS_REMOVED_OPS_PASS_H_
