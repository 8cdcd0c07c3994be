#include "driver/planned_passes.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx_legalize/target_opsets.h"

namespace onnx_legalize {
namespace {

// The highest opset the rewrites may go to: the one asked for, the model's own (keep_opset), or the highest the
// library knows.
int64_t TargetBound(int64_t current, const Options& options) {
  return options.keep_opset ? current : options.target_opset.value_or(kMaxTargetOpset);
}

// What every pass asks of the target opset, together; the first pass's refusal of `bound`.
absl::StatusOr<OpsetNeed> NeedOfEveryPass(const std::vector<std::unique_ptr<Pass>>& passes, int64_t bound,
                                          int64_t current, const Options& options) {
  OpsetNeed needs;
  for (const auto& pass : passes) {
    ASSIGN_OR_RETURN(const OpsetNeed need, pass->NeedWithin(bound, current, options));
    needs.changes = needs.changes || need.changes;
    needs.opset = std::max(needs.opset, need.opset);
  }
  return needs;
}

// The opset the rewrites go to: the one asked for (below the model's own too: the model then moves down), the
// model's own (keep_opset), or the lowest >= current that expresses every pass's rewrites.
int64_t ChooseTargetOpset(const OpsetNeed& need, int64_t current, const Options& options) {
  if (options.keep_opset || options.target_opset.has_value()) return TargetBound(current, options);
  return std::max(current, need.opset);
}

}  // namespace

absl::StatusOr<PlannedPasses> PlanPasses(const onnx::ModelProto& model, int64_t current, const Options& options,
                                         const PassSettings& settings) {
  PlannedPasses planned;
  planned.fold_budget = FoldBudget(options.max_total_fold_bytes);
  ASSIGN_OR_RETURN(planned.passes, PlanEveryPass(model, options, settings, planned.scopes, planned.fold_budget));
  ASSIGN_OR_RETURN(const OpsetNeed need,
                   NeedOfEveryPass(planned.passes, TargetBound(current, options), current, options));
  planned.changes = need.changes;
  planned.target = ChooseTargetOpset(need, current, options);
  return planned;
}

bool ChangesNothing(const PlannedPasses& planned, int64_t current) {
  return planned.target == current && !planned.changes;
}

// What depends on the target, and the proofs that run before the model is transformed (or, without
// verification, the texts that say so); the others, to run while it is, go to `planned.concurrent_proofs`.
absl::Status PrepareAndVerify(PlannedPasses& planned, const Options& options) {
  for (const auto& pass : planned.passes) {
    ASSIGN_OR_RETURN(std::vector<ProofJob> jobs, pass->Verify(planned.target, options));
    for (ProofJob& job : jobs) planned.concurrent_proofs.push_back(std::move(job));
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize
