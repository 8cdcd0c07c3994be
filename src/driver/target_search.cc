// TryLaterTargets: where a target fails for a reason another target may avoid, the next ones, until one succeeds
// or two in a row fail for the same reason; and the opsets at which a model's ops change, which it never passes over
// (NextSchemaChangeOfOpsIn).
#include <algorithm>
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error_kind.h"
#include "driver/legalize_internal.h"
#include "driver/onnx_check.h"
#include "graph/op_names.h"
#include "graph/subgraphs.h"
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

// Where onnx's check failed a node of an op that a later opset defines anew, that opset; otherwise 0.
int64_t OpsetRedefiningTheFailedOp(const TargetFailure& failure) {
  if (failure.step != TargetFailure::Step::kOnnxCheck) return 0;
  return NextSchemaOf(failure.op_type, failure.target);
}

// The target to try after `failure`: while an opset that defines anew an op onnx failed lies ahead
// (`redefinition_ahead`), that opset, or the lower one at which an op of the model changes (onnx names the node it
// failed, whose cause may be its producer: Conv's input, which a Relu-1 leaves untyped and a Relu-6 types);
// otherwise the next opset.
int64_t NextTarget(const TargetFailure& failure, int64_t redefinition_ahead) {
  if (redefinition_ahead == 0) return failure.target + 1;
  if (failure.next_schema_change > 0) return std::min(redefinition_ahead, failure.next_schema_change);
  return redefinition_ahead;
}

// Adds the op types of the default domain that `graph` and the graphs in it hold to `op_types`.
void AddDefaultDomainOpTypes(const onnx::GraphProto& graph, std::set<std::string>& op_types) {
  for (const onnx::NodeProto& node : graph.node()) {
    if (IsDefaultDomain(node.domain())) op_types.insert(node.op_type());
    ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
      AddDefaultDomainOpTypes(subgraph, op_types);
    });
  }
}

}  // namespace

int64_t NextSchemaChangeOfOpsIn(std::initializer_list<const onnx::ModelProto*> models, int64_t opset) {
  std::set<std::string> op_types;
  for (const onnx::ModelProto* model : models) AddDefaultDomainOpTypes(model->graph(), op_types);
  int64_t lowest = 0;
  for (const std::string& op_type : op_types) {
    const int64_t changes_at = NextSchemaOf(op_type, opset);
    if (changes_at > 0 && (lowest == 0 || changes_at < lowest)) lowest = changes_at;
  }
  return lowest;
}

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
  // The highest opset that defines anew an op onnx failed at a target passed over, while it lies ahead; else 0.
  int64_t redefinition_ahead = 0;
  Attempt last = first;
  Options later = options;
  while (!last.report.ok()) {
    if (!last.failed_at_target.has_value() || last.failed_at_target->target >= kMaxTargetOpset) return first.report;
    const TargetFailure failure = *last.failed_at_target;
    passed_over.push_back({failure.target, FirstLine(last.report.status().message())});
    // Where onnx failed a node whose op a later opset defines anew, the search goes on up to that opset, through
    // every opset below it at which an op of the model changes (NextTarget), however alike their failures: the
    // cause may be the failed node's producer, and a later failure of another node may be the same cause's.
    redefinition_ahead = std::max(redefinition_ahead, OpsetRedefiningTheFailedOp(failure));
    if (redefinition_ahead <= failure.target) redefinition_ahead = 0;
    // Otherwise a reason that comes back at the next target the same is the model's, not the target's: stop there
    // rather than try every opset up to 17 (a hopeless model is refused in two tries).
    if (redefinition_ahead == 0 && previous.has_value() && previous->SameReasonAs(failure)) return first.report;
    previous = failure;
    later.target_opset = NextTarget(failure, redefinition_ahead);
    last = attempt(later);
  }
  last.report->targets_passed_over = std::move(passed_over);
  return std::move(last.report);
}

}  // namespace onnx_legalize::internal
