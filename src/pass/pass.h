// A pass takes one family of removed ops through the driver's steps (driver/legalize.cc): plan, the opset its
// rewrites need, verification, apply, report. The driver runs every pass of Passes() the same way and knows
// none of them by name.
//
// Two passes exist: the removed-op rules (ImageScaler, Crop, ... one rule file each, rules/registry.h), and
// DynamicSlice, which predates the rule interface and keeps a pass of its own for its large folds (verified
// on a helper thread while the model is transformed, and moved into the result rather than copied). A new
// removed op is a rule, not a pass.
#ifndef ONNX_LEGALIZE_SRC_PASS_PASS_H_
#define ONNX_LEGALIZE_SRC_PASS_PASS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/tensor.h"
#include "eval/deferred_tensor.h"
#include "graph/graph_locator.h"
#include "graph/graph_scope.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/report.h"
#include "rules/dynamic_slice.h"
#include "rules/fold_budget.h"
#include "upgrade/opset_upgrade.h"

namespace onnx_legalize {

// A value a plan folds, as the opset move sees it: where it is defined, its name, element type and dims.
struct FoldedValueType {
  GraphLocator graph;
  std::string name;
  DataType type = 0;
  std::vector<int64_t> dims;
};

class Pass {
 public:
  virtual ~Pass() = default;

  // Planning, in one walk of the model shared by every pass (PlanInOneWalk): StartPlan once, with checks of the
  // whole model (a refusal names what cannot be legalized), then PlanNode for every node of every graph, which
  // decides Fold | Rewrite for the pass's own nodes, or refuses one naming it and why. Planning reads the model
  // only. A fold is recorded in the node's scope (GraphScope::AddConstant), so that the nodes after it, of any
  // pass, fold through it. Folds take from `budget` (Options::max_total_fold_bytes), which the passes share.
  virtual absl::Status StartPlan(const onnx::ModelProto& model, const Options& options, FoldBudget& budget) = 0;
  virtual absl::Status PlanNode(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) = 0;

  // True when the plan changes something.
  virtual bool HasChanges() const = 0;

  // The lowest default opset that expresses every rewrite of the plan (at least `current`, the model's); 0
  // when it needs none.
  virtual int64_t NeededOpset(int64_t current) const = 0;

  // FailedPrecondition naming the neediest node when the plan's rewrites cannot be written at `bound`: the
  // target asked for (Options::target_opset), the model's own opset (Options::keep_opset, `current`), or the
  // highest the library knows when the target is left to it.
  virtual absl::Status CheckBound(int64_t bound, int64_t current, const Options& options) const = 0;

  // Once the target opset is chosen: fixes what depends on it, then verification, in two parts. First, before
  // the model is transformed, the proofs of values Apply moves into the model: they must be done before it
  // (with Options::verify false, instead, every change says it was not verified). Then, while the model is
  // transformed, independent jobs that the driver may run on any thread in any order (each fills its own
  // change's text): `ConcurrentJobs()` of them, `VerifyJob(i)` each.
  virtual absl::Status PrepareAndVerify(int64_t target, const Options& options) = 0;
  virtual size_t ConcurrentJobs() const { return 0; }
  virtual absl::Status VerifyJob(size_t job, const Options& options) {
    (void)job;
    (void)options;
    return absl::OkStatus();
  }

  // Writes the plan into `model`, whose default opset is already `target` and whose opset move renamed
  // `renamed`. Values the concurrent jobs still read are left as stubs until FillDeferred. Fails only for a
  // plan not made from this model.
  virtual absl::Status Apply(onnx::ModelProto& model, int64_t target, const RenamedOutputs& renamed) = 0;

  // True when Apply left values that FillDeferred writes once the concurrent jobs are done.
  virtual bool DefersValues() const { return false; }
  virtual void FillDeferred(onnx::ModelProto& model) { (void)model; }

  // The values Apply left as stubs that only the writer of the output fills, computing them as it goes
  // (eval/deferred_tensor.h); they read the plan, which must outlive them. Their proofs run as they are
  // written. Only passes made with PassSettings::stream_large_folds leave any.
  virtual DeferredTensors StreamedValues() const { return {}; }

  // The values the plan folds, with their types. The opset move runs before the folds are written, and some
  // of onnx's adapters need the dims of what they read (Gemm and legacy broadcasting 6->7 assert on unknown
  // ones): the driver declares these for the move's sake (and only for it).
  virtual std::vector<FoldedValueType> FoldedValueTypes() const { return {}; }

  // Appends one NodeReport per change; the plan's texts move into it.
  virtual void AppendReport(std::vector<NodeReport>& nodes) = 0;
};

// How the passes are to treat their values.
struct PassSettings {
  // Large folds are left to the writer of the output (Pass::StreamedValues), so that they never exist whole
  // in memory. Only for a caller that writes the result and discards the model (LegalizeFile).
  bool stream_large_folds = false;
};

// Every pass, in the order the driver verifies and reports them: the removed-op rules, then DynamicSlice. (The
// driver applies them in the opposite order: see driver/legalize.cc.)
std::vector<std::unique_ptr<Pass>> MakePasses(const PassSettings& settings = {});

// Plans every pass in one walk of `model` (rules/typed_walk.h). The walk's scopes go to `scopes`, which the
// plans' constants point into, and the passes' planners keep `budget` (Options::max_total_fold_bytes): keep
// both as long as the passes.
absl::Status PlanInOneWalk(const std::vector<std::unique_ptr<Pass>>& passes, const onnx::ModelProto& model,
                           const Options& options, std::vector<std::unique_ptr<GraphScope>>& scopes,
                           FoldBudget& budget);

// The ops the passes rewrite after the opset move, which the move must pass through untouched.
const PassThroughOps& OpsThePassesRewrite();

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_PASS_PASS_H_
