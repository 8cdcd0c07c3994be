// A pass takes one family of removed ops through the driver's steps (driver/legalize.cc): plan, the opset its
// rewrites need, verification, apply, report. The driver runs every pass of PlanEveryPass() the same way and
// knows none of them by name; each method below is a step where the two passes differ.
//
// Two passes exist: the removed-op rules (ImageScaler, Crop, ... one rule file each, rules/registry.h), and
// DynamicSlice, which predates the rule interface and keeps a pass of its own for its large folds (verified
// on a helper thread while the model is transformed, and moved into the result rather than copied). A new
// removed op is a rule, not a pass.
#ifndef ONNX_LEGALIZE_SRC_PASS_PASS_H_
#define ONNX_LEGALIZE_SRC_PASS_PASS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "eval/deferred_tensor.h"
#include "graph/graph_locator.h"
#include "graph/graph_scope.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/report.h"
#include "rules/fold_budget.h"
#include "upgrade/opset_upgrade.h"

namespace onnx_legalize {

// What a plan asks of the target opset.
struct OpsetNeed {
  bool changes = false;  // the plan changes something
  int64_t opset = 0;     // the lowest default opset that expresses every rewrite of the plan; 0 when none needs one
};

// A value a plan folds, as the opset move sees it: where it is defined, its name, element type and dims.
struct FoldedValueType {
  GraphLocator graph;
  std::string name;
  DataType type = 0;
  std::vector<int64_t> dims;
};

// A proof that runs while the model is transformed, on any thread, in any order: it is independent of every
// other and fills its own change's text.
using ProofJob = std::function<absl::Status(const Options& options)>;

// The values a pass's Apply left as stubs, to be filled later.
struct ValuesToCome {
  // Values that verification still reads: moved into the transformed model once it is over. Empty when none.
  std::function<void(onnx::ModelProto& model)> after_verification;
  // Values that only the writer of the output fills, computing them as it goes (eval/deferred_tensor.h); they
  // read the plan, which must outlive them, and their proofs run as they are written. Only passes planned with
  // PassSettings::stream_large_folds leave any.
  DeferredTensors streamed;
};

class Pass {
 public:
  virtual ~Pass() = default;

  // Plans one node, in one walk of the model shared by every pass (PlanEveryPass): Fold | Rewrite for the
  // pass's own nodes, or a refusal naming the node and why. Planning reads the model only. A fold is recorded
  // in the node's scope (GraphScope::AddConstant), so that the nodes after it, of any pass, fold through it.
  virtual absl::Status PlanNode(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) = 0;

  // What the plan asks of the target opset, once every node is planned; FailedPrecondition naming the neediest
  // node when its rewrites cannot be written at `bound`: the target asked for (Options::target_opset), the
  // model's own opset (Options::keep_opset, `current`), or the highest the library knows when the target is
  // left to it.
  virtual absl::StatusOr<OpsetNeed> NeedWithin(int64_t bound, int64_t current, const Options& options) const = 0;

  // The values the plan folds, with their types. The opset move runs before the folds are written, and some
  // of onnx's adapters need the dims of what they read (Gemm and legacy broadcasting 6->7 assert on unknown
  // ones): the driver declares these for the move's sake (and only for it).
  virtual std::vector<FoldedValueType> FoldedValueTypes() const = 0;

  // Once the target opset is chosen: fixes what depends on it, and runs the proofs of values Apply moves into
  // the model, which must be done before it; returns the proofs that may run while the model is transformed.
  // With Options::verify false, instead, every change says it was not verified, and there are no jobs.
  virtual absl::StatusOr<std::vector<ProofJob>> Verify(int64_t target, const Options& options) = 0;

  // Writes the plan into `model`, whose default opset is already `target` and whose opset move renamed
  // `renamed`; values still read by the proofs or computed only as the output is written are left as stubs,
  // and returned. Fails only for a plan not made from this model.
  virtual absl::StatusOr<ValuesToCome> Apply(onnx::ModelProto& model, int64_t target,
                                             const RenamedOutputs& renamed) = 0;

  // Appends one NodeReport per change; the plan's texts move into it.
  virtual void AppendReport(std::vector<NodeReport>& nodes) = 0;
};

// How the passes are to treat their values.
struct PassSettings {
  // Large folds are left to the writer of the output (ValuesToCome::streamed), so that they never exist whole
  // in memory. Only for a caller that writes the result and discards the model (LegalizeFile).
  bool stream_large_folds = false;
};

// Every pass, planned in one walk of `model` (rules/typed_walk.h), in the order the driver verifies and reports
// them: the removed-op rules, then DynamicSlice (the driver applies them in the opposite order: see
// driver/legalize.cc). A refusal names what cannot be legalized: checks of the whole model first, then the
// first node refused. The walk's scopes go to `scopes`, which the plans' constants point into, and the
// planners share `budget` (Options::max_total_fold_bytes): keep both as long as the passes.
absl::StatusOr<std::vector<std::unique_ptr<Pass>>> PlanEveryPass(const onnx::ModelProto& model, const Options& options,
                                                                 const PassSettings& settings,
                                                                 std::vector<std::unique_ptr<GraphScope>>& scopes,
                                                                 FoldBudget& budget);

// The ops the passes rewrite after the opset move, which the move must pass through untouched.
const PassThroughOps& OpsThePassesRewrite();

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_PASS_PASS_H_
