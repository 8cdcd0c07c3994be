// The DynamicSlice pass: for each DynamicSlice in the model, decide Fold | Rewrite (or fail), then apply.
//
// Planning reads the model and changes nothing; applying cannot fail. Between the two the caller verifies
// the plan and moves the model's opset, so a model that fails anywhere is left exactly as it was.
//
//   Fold:     x_sliced = DynamicSlice(W, s, e, a)   with all inputs constant
//             -> initializer x_sliced (the value); W, s, e, a removed when nothing else reads them
//   Rewrite:  y = DynamicSlice(x, s, e[, a])
//             -> y = Slice(x, s, e[, a'])           a' = a with negative axes made positive when the
//                                                    rank is known (Slice-10 leaves them undefined)
//             -> y = Slice-1<starts, ends, axes>(x) with Options::keep_opset
#ifndef ONNX_LEGALIZE_SRC_RULES_DYNAMIC_SLICE_H_
#define ONNX_LEGALIZE_SRC_RULES_DYNAMIC_SLICE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "graph/graph_locator.h"
#include "graph/graph_scope.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/report.h"
#include "rules/fold_budget.h"

namespace onnx_legalize {

// One of a DynamicSlice node's index inputs (starts, ends or axes) as the plan sees it.
struct IndexInput {
  std::string name;                  // "" when omitted (axes only)
  const Tensor* constant = nullptr;  // its value when constant (owned by the plan's scopes)
};

struct DynamicSliceChange {
  GraphLocator graph;
  std::string graph_path;
  std::string node_name;
  std::string output;
  Action action = Action::kFolded;
  std::string detail;

  // The original node's inputs.
  std::string data;
  const Tensor* data_constant = nullptr;
  ValueType data_type;  // what is known of data's type
  IndexInput starts, ends, axes;
  DataType index_type = 0;  // int32 or int64 when known (from any constant or declared index input)

  // kFolded: the value, computed with the DynamicSlice reference kernel. Not const: FillDeferredFolds
  // may move it into the model once nothing reads it any more.
  std::shared_ptr<Tensor> folded;
  // kFolded with PlanDynamicSlices' `stream_large_folds`: a value too large to hold beside the model, left
  // uncomputed (`folded` is null) and written part by part with the output (verify/streamed_fold.h); its
  // dims (the type is the data's).
  bool streamed = false;
  std::vector<int64_t> streamed_dims;

  // kRewritten: the Slice node's inputs; `new_axes` is set when the axes were normalized into a new
  // constant named new_axes_name.
  int64_t slice_version = 0;
  std::string new_axes_name;
  std::shared_ptr<const Tensor> new_axes;
  // The lowest opset whose Slice expresses this rewrite: 10; 11 for axes that may be negative when the
  // rank is unknown (Slice-10 leaves negative axes undefined); 13 for bfloat16 data.
  int64_t min_opset = 10;
  // Options::keep_opset: Slice-1's attributes.
  std::vector<int64_t> attribute_starts, attribute_ends, attribute_axes;

  std::string verification;  // filled by verification
};

struct DynamicSlicePlan {
  std::vector<DynamicSliceChange> changes;
  // The scopes the constants above point into (PlanDynamicSlices'; in the driver's one walk of every planner,
  // the driver keeps them); kept alive with the plan, and never queried once planning is done: the inferred
  // types they consulted (a whole copy of the model's graph, with shape inference's value_info) are released
  // as soon as the plan is made, and their name tables view strings of graphs that Legalize then changes.
  std::vector<std::unique_ptr<GraphScope>> scopes;
};

// Plans the DynamicSlices of one model, node by node, in the walk every planner shares (rules/typed_walk.h).
// A DynamicSlice whose inputs are constants of its scope folds, whichever planner folded them (a
// GivenTensorFill's value, sliced: the model needs no opset for a Slice); its own fold becomes a constant of
// the scope, for the nodes after it. Errors are PlanDynamicSlices'.
class DynamicSlicePlanner {
 public:
  // Folds take from `budget`, shared with the model's other planners; `plan`'s changes are appended to. Both
  // must outlive the planner, and the walk's scopes, which the plan's constants point into, the plan.
  DynamicSlicePlanner(const onnx::ModelProto& model, const Options& options, bool stream_large_folds,
                      FoldBudget& budget, DynamicSlicePlan& plan);
  ~DynamicSlicePlanner();
  DynamicSlicePlanner(const DynamicSlicePlanner&) = delete;
  DynamicSlicePlanner& operator=(const DynamicSlicePlanner&) = delete;

  // Plans `node` when it is a DynamicSlice.
  absl::Status Visit(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Finds every DynamicSlice and decides what to do with it. Errors (InvalidArgument) name the node, its
// graph path and the offending value: wrong input or output counts, attributes, index inputs of a type
// other than int32/int64 or of mixed types, constant indices the operator rejects (lengths, duplicate or
// out-of-range axes, not 1-D), and FailedPrecondition for what keep_opset cannot express.
// The plan's constants (data_constant, IndexInput::constant) may view the bytes of `model`'s large
// initializers and Constant values instead of copying them (GraphScope::FindConstant): while the plan is
// read, those TensorProtos must keep their raw_data where it is (Legalize moves them only by Swap between
// heap messages, which does).
// With `stream_large_folds` (LegalizeFile), a main-graph fold of more than kSkeletonKeepBytes of raw bytes
// that no planner folds through (a DynamicSlice or a removed op reading it) is left uncomputed
// (DynamicSliceChange::streamed): the decisions and the output are the same, only the value is computed as it is
// written.
// This plans the DynamicSlices alone, in a walk of their own; the driver plans every family in one walk.
absl::StatusOr<DynamicSlicePlan> PlanDynamicSlices(const onnx::ModelProto& model, const Options& options,
                                                   bool stream_large_folds = false);

// How ApplyDynamicSlices writes a folded value into the main graph.
enum class FoldedValues {
  kWrite,  // the value itself (a copy; the plan keeps its own)
  // For a value BuildModelSkeleton would leave out (more bytes than kSkeletonKeepBytes, not strings): a stub
  // with its name, type and dims, marked as external data, which FillDeferredFolds fills later. The model
  // can be checked (through BuildModelSkeleton) meanwhile, and the value is never copied. A streamed fold
  // is always a stub (whichever way), filled only as the output is written (eval/deferred_tensor.h).
  kDefer,
};

// Applies `plan` to `model`, whose default opset is already `opset` (at least 10, or the original opset
// when every change is a fold or keep_opset), after a move that renamed `renamed`. Fails (Internal, the model
// unchanged) only for a plan that does not fit the model: a graph or node it names is not there.
absl::Status ApplyDynamicSlices(DynamicSlicePlan& plan, onnx::ModelProto& model,
                                FoldedValues folded = FoldedValues::kWrite, const RenamedOutputs& renamed = {});

// Fills the stubs ApplyDynamicSlices(kDefer) left in `model`'s main graph with the folded values, moved out of the
// plan where no other change reads them (a fold that feeds another DynamicSlice is copied). Call it once
// nothing reads the plan's folded values any more (after verification).
void FillDeferredFolds(DynamicSlicePlan& plan, onnx::ModelProto& model);

// The Slice version a model at default opset `opset` runs: 1 below 10, 10, 11 (11-12) or 13 (13+).
int64_t SliceVersionAtOpset(int64_t opset);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_DYNAMIC_SLICE_H_
