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
  static absl::StatusOr<std::unique_ptr<Pass>> Start(const onnx::ModelProto& model, const Options& options,
                                                     FoldBudget& budget) {
    auto pass = std::unique_ptr<RemovedOpsPass>(new RemovedOpsPass());
    ASSIGN_OR_RETURN(RemovedOpPlanner planner, RemovedOpPlanner::Start(model, options, budget, pass->plan_));
    pass->planner_.emplace(std::move(planner));
    return pass;
  }

  absl::Status PlanNode(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) override {
    return planner_->Visit(node, scope, locator);
  }

  absl::StatusOr<OpsetNeed> NeedWithin(int64_t bound, int64_t current, const Options& options) const override {
    (void)current;
    const int64_t needed = MinOpsetForRemovedOps(plan_);
    if (needed > bound) {
      // The first change that needs it names the refusal.
      const auto neediest = std::find_if(plan_.changes.begin(), plan_.changes.end(), [needed](const auto& change) {
        return change.action == Action::kRewritten && change.min_opset == needed;
      });
      return absl::FailedPreconditionError(absl::StrCat(
          options.keep_opset ? "keeping the model's opset " : "target opset ", bound, " cannot express the rewrite of ",
          neediest->AsRuleNode().label, ": its replacement needs opset ", needed));
    }
    return OpsetNeed{!plan_.changes.empty(), needed};
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

  absl::StatusOr<std::vector<ProofJob>> Verify(int64_t target, const Options& options) override {
    if (options.verify) {
      RETURN_IF_ERROR(VerifyRemovedOps(plan_, target, options));
    } else {
      for (RemovedOpChange& change : plan_.changes) change.verification = kVerificationSkipped;
    }
    return std::vector<ProofJob>();
  }

  absl::StatusOr<ValuesToCome> Apply(onnx::ModelProto& model, int64_t target, const RenamedOutputs& renamed) override {
    RETURN_IF_ERROR(ApplyRemovedOps(plan_, model, target, renamed));
    return ValuesToCome();
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
  RemovedOpsPass() = default;

  RemovedOpPlan plan_;
  std::optional<RemovedOpPlanner> planner_;  // while planning
};

// DynamicSlice: folds verified by recomputing them with the Slice kernel, rewrites by seeded trials, each
// change a job of its own that runs while the model is transformed. Large folds stay in the plan until
// those jobs are done, and are then moved into the model (ValuesToCome::after_verification), never copied.
class DynamicSlicePass : public Pass {
 public:
  DynamicSlicePass(const onnx::ModelProto& model, const Options& options, const PassSettings& settings,
                   FoldBudget& budget)
      : verify_(options.verify),
        planner_(std::make_unique<DynamicSlicePlanner>(model, options, settings.stream_large_folds, budget, plan_)) {}

  absl::Status PlanNode(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) override {
    return planner_->Visit(node, scope, locator);
  }

  absl::StatusOr<OpsetNeed> NeedWithin(int64_t bound, int64_t current, const Options& options) const override {
    const OpsetNeed need{!plan_.changes.empty(), NeededOpset(current)};
    const DynamicSliceChange* neediest = Neediest();
    if (neediest == nullptr) return need;
    const int64_t needed = std::max(kFirstSliceWithIndexInputs, neediest->min_opset);
    if (options.keep_opset) {
      // Below 10 the rewrites become Slice-1 (the planner refused what Slice-1 cannot express); from 10 on
      // they become the Slice of the model's own opset, which must express them.
      if (current < kFirstSliceWithIndexInputs || needed <= current) return need;
      return absl::FailedPreconditionError(
          absl::StrCat("keeping the model's opset: opset ", current, " cannot express the rewrite of DynamicSlice '",
                       neediest->node_name, "' (graph ", neediest->graph_path, "): it needs opset ", needed));
    }
    if (!options.target_opset.has_value() || needed <= bound) return need;
    return absl::FailedPreconditionError(
        absl::StrCat("target opset ", bound, " cannot express the rewrite of DynamicSlice '", neediest->node_name,
                     "' (graph ", neediest->graph_path, "): it needs opset ", needed, " (", neediest->detail, ")"));
  }

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

  // The Slice version the target runs is fixed; the proofs are all concurrent jobs, one per change.
  absl::StatusOr<std::vector<ProofJob>> Verify(int64_t target, const Options& options) override {
    std::vector<ProofJob> jobs;
    for (DynamicSliceChange& change : plan_.changes) {
      if (change.action == Action::kRewritten) change.slice_version = SliceVersionAtOpset(target);
      if (!options.verify) {
        change.verification = kVerificationSkipped;
        continue;
      }
      jobs.push_back([&change](const Options& at) { return VerifyDynamicSliceChange(change, at); });
    }
    return jobs;
  }

  absl::StatusOr<ValuesToCome> Apply(onnx::ModelProto& model, int64_t target, const RenamedOutputs& renamed) override {
    (void)target;  // the Slice version was fixed by Verify
    // Large folded values are filled in after verification, which reads them meanwhile.
    RETURN_IF_ERROR(ApplyDynamicSlices(plan_, model, FoldedValues::kDefer, renamed));
    ValuesToCome values;
    if (DefersValues()) {
      values.after_verification = [this](onnx::ModelProto& result) { FillDeferredFolds(plan_, result); };
    }
    for (const DynamicSliceChange& change : plan_.changes) {
      if (change.streamed) {
        values.streamed.emplace(change.output, std::make_shared<StreamedFold>(change, change.streamed_dims, verify_));
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

  // The lowest opset >= `current` that expresses every rewrite; 0 when nothing is rewritten.
  int64_t NeededOpset(int64_t current) const {
    const DynamicSliceChange* neediest = Neediest();
    return neediest == nullptr ? 0 : std::max({current, kFirstSliceWithIndexInputs, neediest->min_opset});
  }

  // True when Apply leaves folded values in the plan that verification reads (the others are streamed).
  bool DefersValues() const {
    return std::any_of(plan_.changes.begin(), plan_.changes.end(), [](const DynamicSliceChange& change) {
      return change.action == Action::kFolded && !change.streamed;
    });
  }

  const bool verify_;  // Options::verify, for the streamed folds' proofs
  DynamicSlicePlan plan_;
  std::unique_ptr<DynamicSlicePlanner> planner_;  // while planning
};

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Pass>>> PlanEveryPass(const onnx::ModelProto& model, const Options& options,
                                                                 const PassSettings& settings,
                                                                 std::vector<std::unique_ptr<GraphScope>>& scopes,
                                                                 FoldBudget& budget) {
  std::vector<std::unique_ptr<Pass>> passes;
  ASSIGN_OR_RETURN(std::unique_ptr<Pass> removed_ops, RemovedOpsPass::Start(model, options, budget));
  passes.push_back(std::move(removed_ops));
  passes.push_back(std::make_unique<DynamicSlicePass>(model, options, settings, budget));
  RETURN_IF_ERROR(WalkTypedModel(model, options.external_data, scopes,
                                 [&](const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) {
                                   for (const auto& pass : passes) {
                                     RETURN_IF_ERROR(pass->PlanNode(node, scope, locator));
                                   }
                                   return absl::OkStatus();
                                 }));
  return passes;
}

const PassThroughOps& OpsThePassesRewrite() {
  // DynamicSlice the upgrade passes through on its own (it predates the rules); the rules' ops it is told of.
  return RemovedOpsPassThrough();
}

}  // namespace onnx_legalize
