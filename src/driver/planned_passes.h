// Every pass planned over a model, and the target opset the plan goes to: what a legalization decides before it
// changes anything.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_PLANNED_PASSES_H_
#define ONNX_LEGALIZE_SRC_DRIVER_PLANNED_PASSES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/graph_scope.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/options.h"
#include "pass/pass.h"
#include "rules/fold_budget.h"

namespace onnx_legalize {

// The passes, planned, and the target opset they go to.
struct PlannedPasses {
  // The scopes of the planning walk, which the plans' constants point into, and the fold budget the passes'
  // planners keep: declared first, destroyed last.
  std::vector<std::unique_ptr<GraphScope>> scopes;
  FoldBudget fold_budget;
  std::vector<std::unique_ptr<Pass>> passes;
  bool changes = false;  // some pass changes the model
  int64_t target = 0;
  // The proofs that run while the model is transformed (PrepareAndVerify's).
  std::vector<ProofJob> concurrent_proofs;
};

// Plans every pass over `model`, whose default opset is `current`, and chooses the target: the one asked for, the
// model's own (Options::keep_opset), or the lowest >= current that expresses every rewrite. A target below the
// model's opset is InvalidArgument; a refusal of a pass (a node, or a target its rewrites cannot be written at),
// the pass's.
absl::StatusOr<PlannedPasses> PlanPasses(const onnx::ModelProto& model, int64_t current, const Options& options,
                                         const PassSettings& settings);

// True when the plan changes nothing: no pass changes the model, and the target is its own opset.
bool ChangesNothing(const PlannedPasses& planned, int64_t current);

// What depends on the target, and the proofs that run before the model is transformed (or, without
// verification, the texts that say so); the others, to run while it is, go to `planned.concurrent_proofs`.
absl::Status PrepareAndVerify(PlannedPasses& planned, const Options& options);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_PLANNED_PASSES_H_
