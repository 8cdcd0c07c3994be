// Legalize(): plan, verify, check the result on a light copy, then apply. The model is touched only after
// everything that can fail has succeeded, so a failure leaves it exactly as it was. LegalizeFile uses the
// same steps in another order (legalize_internal.h): it writes the result while the proofs still run.
//
// The steps, each in a file of its own: the plan and its target (planned_passes.h), one target's transformation
// (transform.h) inside a session that proves and commits it or rolls it back (target_session.h), and the search
// for a later target where one fails (target_search.cc).
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "driver/declared_output_shapes.h"
#include "driver/ir3_initializer_inputs.h"
#include "driver/legalize_internal.h"
#include "driver/onnx_check.h"
#include "driver/planned_passes.h"
#include "driver/proofs_under_way.h"
#include "driver/target_session.h"
#include "driver/transform.h"
#include "era/legacy_repairs.h"
#include "google/protobuf/arena.h"
#include "graph/graph_validation.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/subgraphs.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize {
namespace {

// The report of a legalization that changed the model; the passes' texts move into it.
void CompleteReport(const onnx::ModelProto& model, PlannedPasses& planned, const absl::Status& input_verdict,
                    Report& report) {
  report.onnx_check = input_verdict.ok() ? "onnx's checker and strict shape inference accept the result"
                                         : absl::StrCat(
                                               "onnx's checker and strict shape inference accept the result "
                                               "(the input itself the checker rejects: ",
                                               FirstLine(input_verdict.message()), ")");
  report.opset_after = planned.target;
  report.ir_version_after = model.ir_version();
  report.changed = true;
  for (const auto& pass : planned.passes) pass->AppendReport(report.nodes);
}

// Whether `graph` or a graph in it holds a node of the default domain.
bool HoldsDefaultDomainNode(const onnx::GraphProto& graph) {
  bool found = false;
  for (const onnx::NodeProto& node : graph.node()) {
    found = found || IsDefaultDomain(node.domain());
    ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
      found = found || HoldsDefaultDomainNode(subgraph);
    });
  }
  return found;
}

// Whether `model` neither imports the default domain nor holds a node of it, in any graph or function.
bool HoldsNoDefaultDomainAtAll(const onnx::ModelProto& model) {
  for (const auto& import : model.opset_import()) {
    if (IsDefaultDomain(import.domain())) return false;
  }
  if (model.ir_version() < 3 && model.opset_import_size() == 0) return false;  // IR 1-2: opset 1 is implied
  for (const onnx::FunctionProto& function : model.functions()) {
    for (const onnx::NodeProto& node : function.node()) {
      if (IsDefaultDomain(node.domain())) return false;
    }
  }
  return !HoldsDefaultDomainNode(model.graph());
}

// Whether onnx's checker and strict shape inference accept `model` as it is.
bool AcceptedAsItIs(const onnx::ModelProto& model) {
  google::protobuf::Arena arena;
  return CheckWithOnnx(*SkeletonToCheck(model, arena)).status.ok();
}

// An ai.onnx.ml-only model (a scikit-learn or CoreML conversion): no removed op can be in it, and it has no
// default opset to move. Nothing to legalize is not valid, though: what onnx's checker wants of its declarations
// is written (the IR version, output shapes), and the result must pass the checker and strict shape inference
// like any other, or the model is refused and left as it was.
internal::Attempt LegalizeWithoutDefaultDomain(onnx::ModelProto& model, const internal::UseLegalized* use,
                                               Report& report) {
  const int64_t ir_version_before = model.ir_version();
  const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs_before = model.graph().input();
  const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> outputs_before = model.graph().output();
  RaiseIrVersionAsTheCheckerNeeds(model);
  std::optional<std::string> unlisted = UnlistIr3InitializerInputs(ir_version_before, model);
  std::vector<InterfaceChange> declared = DeclareInferredOutputShapes(model);
  google::protobuf::Arena arena;
  const OnnxVerdict verdict = CheckWithOnnx(*SkeletonToCheck(model, arena));
  if (!verdict.status.ok()) {
    model.set_ir_version(ir_version_before);
    *model.mutable_graph()->mutable_input() = inputs_before;
    *model.mutable_graph()->mutable_output() = outputs_before;
    return absl::FailedPreconditionError(
        absl::StrCat("the model (of no default-domain op, so nothing to legalize) would not pass onnx's checker and "
                     "strict shape inference: ",
                     verdict.status.message()));
  }
  report.ir_version_after = model.ir_version();
  report.changed = report.changed || report.ir_version_after != ir_version_before || !declared.empty();
  report.interface_changes.insert(report.interface_changes.end(), declared.begin(), declared.end());
  if (unlisted.has_value()) report.legacy_repairs.push_back(*std::move(unlisted));
  report.onnx_check = "onnx's checker and strict shape inference accept the result";
  if (use != nullptr) RETURN_IF_ERROR((*use)(model, {}, [] { return absl::OkStatus(); }));
  return report;
}

// Legalize, in either of two orders. Without `use`, the proofs complete before the model changes, and a
// failure leaves it as it was. With `use`, the legalized model goes to `use` while they still run.
// `repairs` receives what the model's era left implicit and is written anew (era/legacy_repairs.h), so that
// Legalize can take it back when legalizing fails.
internal::Attempt LegalizeImpl(onnx::ModelProto& model, const Options& options, const internal::UseLegalized* use,
                               LegacyRepairs& repairs) {
  RETURN_IF_ERROR(ValidateOptions(options));
  Report report;
  report.ir_version_before = report.ir_version_after = model.ir_version();
  RETURN_IF_ERROR(ReadAsItsEra(model, repairs));
  report.ir_version_after = model.ir_version();  // an IR version the era left out is written (IR 0 -> 3)
  report.legacy_repairs = repairs.Describe();
  report.changed = !repairs.empty();
  RETURN_IF_ERROR(ValidateGraphs(model));
  report.interface_changes = repairs.InterfaceChanges();
  if (HoldsNoDefaultDomainAtAll(model)) return LegalizeWithoutDefaultDomain(model, use, report);
  ASSIGN_OR_RETURN(const int64_t current, DefaultOpset(model));
  // onnx's checker looks a later opset's nodes up in the latest schemas and accepts them, but no runtime runs it.
  if (current > kMaxTargetOpset) {
    return absl::InvalidArgumentError(absl::StrCat("the model imports the default domain at opset ", current, ", past ",
                                                   kMaxTargetOpset,
                                                   ", the latest onnx 1.23.2 defines: no runtime can load it"));
  }
  report.opset_before = report.opset_after = current;

  // Whether onnx's checker accepts the input, found out while the plan is made: both only read the model.
  std::future<absl::Status> input_checker_verdict =
      std::async(ProofLaunch(options), [&model] { return InputCheckerVerdict(model); });
  // A caller that only writes the result lets large folds be computed as they are written.
  ASSIGN_OR_RETURN(PlannedPasses planned,
                   PlanPasses(model, current, options, PassSettings{/*stream_large_folds=*/use != nullptr}));
  if (ChangesNothing(planned, current) && AcceptedAsItIs(model)) {
    if (use != nullptr) RETURN_IF_ERROR((*use)(model, {}, [] { return absl::OkStatus(); }));
    return report;
  }
  // Nothing to legalize, but onnx's checker rejects the model, and exit 0 must mean that it accepts the result:
  // what the IR version an opset import needs fixes is fixed at this target, what a later opset fixes at the
  // lowest target that does (TryLaterTargets goes on from a failure here), and the rest is refused.
  RETURN_IF_ERROR(PrepareAndVerify(planned, options));
  absl::Status input_verdict;
  {  // the session ends (its helper threads joined) before the report is completed
    TargetSession session(model, planned, current, options);
    input_verdict = session.StartVerification(input_checker_verdict);
    SessionEnd end = session.TransformCopy();
    if (end.status.ok()) end = use == nullptr ? session.AwaitProofsAndCommit() : session.CommitAndUse(*use);
    if (!end.status.ok()) return std::move(end).AsAttempt();
    report.interface_changes.insert(report.interface_changes.end(), session.interface_changes().begin(),
                                    session.interface_changes().end());
    report.legacy_repairs.insert(report.legacy_repairs.end(), session.legacy_repairs().begin(),
                                 session.legacy_repairs().end());
    report.opset_move = std::move(session.opset_move().text);
    report.opset_move_proof = std::move(session.opset_move().proof);
    report.opset_move_changes = std::move(session.opset_move_changes());
  }
  CompleteReport(model, planned, input_verdict, report);
  return report;
}

}  // namespace

absl::StatusOr<Report> Legalize(onnx::ModelProto& model, const Options& options) {
  return internal::TryLaterTargets(options, [&model](const Options& at) {
    LegacyRepairs repairs;
    internal::Attempt attempt = LegalizeImpl(model, at, nullptr, repairs);
    if (!attempt.report.ok()) repairs.Undo();  // the rest of a failure leaves the model as the repairs made it
    return attempt;
  });
}

namespace internal {

Attempt LegalizeAndUse(onnx::ModelProto& model, const Options& options, const UseLegalized& use) {
  LegacyRepairs repairs;  // the caller discards the model when this fails: nothing to take back
  return LegalizeImpl(model, options, &use, repairs);
}

}  // namespace internal
}  // namespace onnx_legalize
