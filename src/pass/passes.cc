// The two passes (pass.h): the removed-op rules (pass/removed_ops_pass.h) and DynamicSlice
// (rules/dynamic_slice.h), each behind the driver's one interface.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "pass/pass.h"
#include "pass/removed_ops_pass.h"
#include "rules/dynamic_slice.h"
#include "rules/typed_walk.h"
#include "verify/dynamic_slice_verify.h"
#include "verify/removed_ops_verify.h"
#include "verify/streamed_fold.h"

namespace onnx_legalize {
namespace {

// ImageScaler, Crop, Affine, ... by their rules. Their proofs run before the transformation: each is a few
// seeded trials of one node, and Apply moves the folded values into the model.
class RemovedOpsPass : public Pass {
 public:
  absl::Status StartPlan(const onnx::ModelProto& model, const Options& options, FoldBudget& budget) override {
    ASSIGN_OR_RETURN(RemovedOpPlanner planner, RemovedOpPlanner::Start(model, options, budget, plan_));
    planner_.emplace(std::move(planner));
    return absl::OkStatus();
  }

  absl::Status PlanNode(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) override {
    return planner_->Visit(node, scope, locator);
  }

  bool HasChanges() const override { return !plan_.changes.empty(); }

  int64_t NeededOpset(int64_t current) const override {
    const int64_t needed = MinOpsetForRemovedOps(plan_);
    return needed == 0 ? 0 : std::max(current, needed);
  }

  absl::Status CheckBound(int64_t bound, int64_t current, const Options& options) const override {
    (void)current;
    const int64_t needed = MinOpsetForRemovedOps(plan_);
    if (needed <= bound) return absl::OkStatus();
    // The first change that needs it names the refusal.
    const auto neediest = std::find_if(plan_.changes.begin(), plan_.changes.end(), [needed](const auto& change) {
      return change.action == Action::kRewritten && change.min_opset == needed;
    });
    return absl::FailedPreconditionError(absl::StrCat(
        options.keep_opset ? "keeping the model's opset " : "target opset ", bound, " cannot express the rewrite of ",
        neediest->AsRuleNode().label, ": its replacement needs opset ", needed));
  }

  absl::Status PrepareAndVerify(int64_t target, const Options& options) override {
    if (options.verify) return VerifyRemovedOps(plan_, target, options);
    for (RemovedOpChange& change : plan_.changes) change.verification = kVerificationSkipped;
    return absl::OkStatus();
  }

  absl::Status Apply(onnx::ModelProto& model, int64_t target, const RenamedOutputs& renamed) override {
    return ApplyRemovedOps(plan_, model, target, renamed);
  }

  std::vector<FoldedValueType> FoldedValueTypes() const override {
    std::vector<FoldedValueType> types;
    for (const RemovedOpChange& change : plan_.changes) {
      if (change.action != Action::kFolded) continue;
      for (size_t i = 0; i < change.folded.size() && i < static_cast<size_t>(change.node.output_size()); ++i) {
        const Tensor& value = change.folded[i];
        types.push_back({change.graph, change.node.output(static_cast<int>(i)), value.type(), value.dims()});
      }
    }
    return types;
  }

  void AppendReport(std::vector<NodeReport>& nodes) override {
    for (RemovedOpChange& change : plan_.changes) {
      NodeReport node;
      node.op_type = change.node.op_type();
      node.graph_path = std::move(change.graph_path);
      node.node_name = change.node.name();
      node.output = change.node.output_size() > 0 ? change.node.output(0) : "";
      node.action = change.action;
      node.became = std::move(change.became);
      node.detail = std::move(change.detail);
      node.verification = std::move(change.verification);
      nodes.push_back(std::move(node));
    }
  }

 private:
  RemovedOpPlan plan_;
  std::optional<RemovedOpPlanner> planner_;  // while planning
};

// DynamicSlice: folds verified by recomputing them with the Slice kernel, rewrites by seeded trials, each
// change a job of its own that runs while the model is transformed. Large folds stay in the plan until
// those jobs are done, and are then moved into the model (FillDeferred), never copied.
class DynamicSlicePass : public Pass {
 public:
  explicit DynamicSlicePass(const PassSettings& settings) : settings_(settings) {}

  absl::Status StartPlan(const onnx::ModelProto& model, const Options& options, FoldBudget& budget) override {
    planner_ = std::make_unique<DynamicSlicePlanner>(model, options, settings_.stream_large_folds, budget, plan_);
    verify_ = options.verify;
    return absl::OkStatus();
  }

  absl::Status PlanNode(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) override {
    return planner_->Visit(node, scope, locator);
  }

  bool HasChanges() const override { return !plan_.changes.empty(); }

  int64_t NeededOpset(int64_t current) const override {
    const DynamicSliceChange* neediest = Neediest();
    return neediest == nullptr ? 0 : std::max({current, kFirstSliceWithIndexInputs, neediest->min_opset});
  }

  absl::Status CheckBound(int64_t bound, int64_t current, const Options& options) const override {
    const DynamicSliceChange* neediest = Neediest();
    if (neediest == nullptr) return absl::OkStatus();
    const int64_t needed = std::max(kFirstSliceWithIndexInputs, neediest->min_opset);
    if (options.keep_opset) {
      // Below 10 the rewrites become Slice-1 (the planner refused what Slice-1 cannot express); from 10 on
      // they become the Slice of the model's own opset, which must express them.
      if (current < kFirstSliceWithIndexInputs || needed <= current) return absl::OkStatus();
      return absl::FailedPreconditionError(
          absl::StrCat("keeping the model's opset: opset ", current, " cannot express the rewrite of DynamicSlice '",
                       neediest->node_name, "' (graph ", neediest->graph_path, "): it needs opset ", needed));
    }
    if (!options.target_opset.has_value() || needed <= bound) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat("target opset ", bound, " cannot express the rewrite of DynamicSlice '", neediest->node_name,
                     "' (graph ", neediest->graph_path, "): it needs opset ", needed, " (", neediest->detail, ")"));
  }

  // The Slice version the target runs is fixed; the proofs are all concurrent jobs.
  absl::Status PrepareAndVerify(int64_t target, const Options& options) override {
    for (DynamicSliceChange& change : plan_.changes) {
      if (change.action == Action::kRewritten) change.slice_version = SliceVersionAtOpset(target);
      if (!options.verify) change.verification = kVerificationSkipped;
    }
    return absl::OkStatus();
  }
  size_t ConcurrentJobs() const override { return plan_.changes.size(); }
  absl::Status VerifyJob(size_t job, const Options& options) override {
    return VerifyDynamicSliceChange(plan_.changes[job], options);
  }

  absl::Status Apply(onnx::ModelProto& model, int64_t target, const RenamedOutputs& renamed) override {
    (void)target;  // the Slice version was fixed by PrepareAndVerify
    // Large folded values are filled in after verification, which reads them meanwhile.
    return ApplyDynamicSlices(plan_, model, FoldedValues::kDefer, renamed);
  }

  bool DefersValues() const override {
    return std::any_of(plan_.changes.begin(), plan_.changes.end(), [](const DynamicSliceChange& change) {
      return change.action == Action::kFolded && !change.streamed;
    });
  }
  void FillDeferred(onnx::ModelProto& model) override { FillDeferredFolds(plan_, model); }

  std::vector<FoldedValueType> FoldedValueTypes() const override {
    std::vector<FoldedValueType> types;
    for (const DynamicSliceChange& change : plan_.changes) {
      if (change.action != Action::kFolded) continue;
      if (change.streamed) {
        types.push_back({change.graph, change.output, change.data_type.elem_type, change.streamed_dims});
      } else {
        types.push_back({change.graph, change.output, change.folded->type(), change.folded->dims()});
      }
    }
    return types;
  }

  DeferredTensors StreamedValues() const override {
    DeferredTensors values;
    for (const DynamicSliceChange& change : plan_.changes) {
      if (change.streamed) {
        values.emplace(change.output, std::make_shared<StreamedFold>(change, change.streamed_dims, verify_));
      }
    }
    return values;
  }

  void AppendReport(std::vector<NodeReport>& nodes) override {
    for (DynamicSliceChange& change : plan_.changes) {
      NodeReport node;
      node.graph_path = std::move(change.graph_path);
      node.node_name = std::move(change.node_name);
      node.output = std::move(change.output);
      node.action = change.action;
      node.slice_version = change.action == Action::kRewritten ? change.slice_version : 0;
      node.became = change.action == Action::kRewritten ? absl::StrCat("Slice-", change.slice_version) : "initializer";
      node.detail = std::move(change.detail);
      node.verification = std::move(change.verification);
      nodes.push_back(std::move(node));
    }
  }

 private:
  // The rewrite that needs the highest opset (the first of them), or null when nothing is rewritten.
  const DynamicSliceChange* Neediest() const {
    const DynamicSliceChange* neediest = nullptr;
    for (const DynamicSliceChange& change : plan_.changes) {
      if (change.action != Action::kRewritten) continue;
      if (neediest == nullptr || change.min_opset > neediest->min_opset) neediest = &change;
    }
    return neediest;
  }

  const PassSettings settings_;
  bool verify_ = true;  // Options::verify, for the streamed folds' proofs
  DynamicSlicePlan plan_;
  std::unique_ptr<DynamicSlicePlanner> planner_;  // while planning
};

}  // namespace

std::vector<std::unique_ptr<Pass>> MakePasses(const PassSettings& settings) {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<RemovedOpsPass>());
  passes.push_back(std::make_unique<DynamicSlicePass>(settings));
  return passes;
}

absl::Status PlanInOneWalk(const std::vector<std::unique_ptr<Pass>>& passes, const onnx::ModelProto& model,
                           const Options& options, std::vector<std::unique_ptr<GraphScope>>& scopes,
                           FoldBudget& budget) {
  for (const auto& pass : passes) RETURN_IF_ERROR(pass->StartPlan(model, options, budget));
  return WalkTypedModel(model, options.external_data, scopes,
                        [&](const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) {
                          for (const auto& pass : passes) RETURN_IF_ERROR(pass->PlanNode(node, scope, locator));
                          return absl::OkStatus();
                        });
}

const PassThroughOps& OpsThePassesRewrite() {
  // DynamicSlice the upgrade passes through on its own (it predates the rules); the rules' ops it is told of.
  return RemovedOpsPassThrough();
}

}  // namespace onnx_legalize
