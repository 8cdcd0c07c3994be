// TryLaterTargets: where a target fails for a reason another target may avoid, the next ones, until one succeeds
// or two in a row fail for the same reason.
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error_kind.h"
#include "driver/legalize_internal.h"
#include "driver/onnx_check.h"
#include "onnx/defs/schema.h"
#include "onnx_legalize/target_opsets.h"

namespace onnx_legalize::internal {

namespace {

// The lowest default opset above `opset`, up to kMaxTargetOpset, at which onnx defines `op_type` anew, or 0:
// where onnx failed a node of that op at `opset`, the target worth trying next (Constant takes strings from 9,
// which the label Constants of OnnxMLTools' opset-7 classifiers hold).
int64_t NextSchemaOf(const std::string& op_type, int64_t opset) {
  if (op_type.empty()) return 0;
  const onnx::OpSchema* at = onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(opset), "");
  for (int64_t version = opset + 1; version <= kMaxTargetOpset; ++version) {
    const onnx::OpSchema* later = onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(version), "");
    if (later != nullptr && (at == nullptr || later->since_version() > at->since_version())) return version;
  }
  return 0;
}

// Where onnx's check failed a node of an op that a later opset defines anew, that opset (the target worth trying
// next); otherwise 0.
int64_t OpsetRedefiningTheFailedOp(const TargetFailure& failure) {
  if (failure.step != TargetFailure::Step::kOnnxCheck) return 0;
  return NextSchemaOf(failure.op_type, failure.target);
}

}  // namespace

bool TargetFailure::SameReasonAs(const TargetFailure& other) const {
  return std::tie(step, code, op_type, node, graph) ==
         std::tie(other.step, other.code, other.op_type, other.node, other.graph);
}

Attempt Attempt::FailedAt(absl::Status failure, TargetFailure why) {
  Attempt attempt(std::move(failure));
  if (!IsVerificationFailure(attempt.report.status())) attempt.failed_at_target = std::move(why);
  return attempt;
}

absl::StatusOr<Report> TryLaterTargets(const Options& options, const std::function<Attempt(const Options&)>& attempt) {
  const Attempt first = attempt(options);
  if (first.report.ok() || options.target_opset.has_value() || options.keep_opset) return first.report;
  std::vector<PassedOverTarget> passed_over;
  std::optional<TargetFailure> previous;
  Attempt last = first;
  Options later = options;
  while (!last.report.ok()) {
    if (!last.failed_at_target.has_value() || last.failed_at_target->target >= kMaxTargetOpset) return first.report;
    const TargetFailure failure = *last.failed_at_target;
    passed_over.push_back({failure.target, FirstLine(last.report.status().message())});
    // Where onnx failed a node whose op a later opset defines anew, that opset is tried next.
    const int64_t redefined_at = OpsetRedefiningTheFailedOp(failure);
    // Otherwise a reason that comes back at the next target the same is the model's, not the target's: stop there
    // rather than try every opset up to 17 (a hopeless model is refused in two tries).
    if (redefined_at == 0 && previous.has_value() && previous->SameReasonAs(failure)) return first.report;
    previous = failure;
    later.target_opset = redefined_at > 0 ? redefined_at : failure.target + 1;
    last = attempt(later);
  }
  last.report->targets_passed_over = std::move(passed_over);
  return std::move(last.report);
}

}  // namespace onnx_legalize::internal
