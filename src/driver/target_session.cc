#include "driver/target_session.h"
#include "check/check_model.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/return_freed_memory.h"
#include "core/status_macros.h"
#include "driver/declared_output_shapes.h"
#include "driver/ir3_initializer_inputs.h"
#include "driver/transform.h"
#include "google/protobuf/arena.h"
#include "onnx_legalize/findings.h"

namespace onnx_legalize {
namespace {

// The nodes of a model that do not match their op's schema, as (graph path, node name, op type) with their
// reasons.
using SchemaMismatchesByNode = std::multimap<std::tuple<std::string, std::string, std::string>, std::string>;

absl::StatusOr<SchemaMismatchesByNode> SchemaMismatches(const onnx::ModelProto& model) {
  ASSIGN_OR_RETURN(const std::vector<CheckFinding> findings, CheckModelNodes(model, /*validate=*/false));
  SchemaMismatchesByNode mismatches;
  for (const CheckFinding& finding : findings) {
    if (finding.mismatches_schema) {
      mismatches.emplace(std::make_tuple(finding.graph_path, finding.node_name, finding.op_type), finding.reason);
    }
  }
  return mismatches;
}

StepFailure FailedStep(absl::Status status, internal::TargetFailure::Step step, std::string op_type = "",
                       std::string node = "", std::string graph = "") {
  internal::TargetFailure why;
  why.step = step;
  why.code = status.code();
  why.op_type = std::move(op_type);
  why.node = std::move(node);
  why.graph = std::move(graph);
  return {std::move(status), std::move(why)};
}

// FailedPrecondition when legalizing made a node that does not match its schema (onnx's converter carries an
// attribute of an invalid input over, say): a node the input already wrote wrong passes through, but none
// is made wrong. Held even where onnx's checker is not (an input it rejects).
std::optional<StepFailure> RefuseNewSchemaMismatches(const onnx::ModelProto& input, const onnx::ModelProto& result) {
  constexpr internal::TargetFailure::Step kStep = internal::TargetFailure::Step::kSchemaMismatch;
  absl::StatusOr<SchemaMismatchesByNode> after = SchemaMismatches(result);
  if (!after.ok()) return FailedStep(after.status(), kStep);
  if (after->empty()) return std::nullopt;  // the usual case: the input need not be walked again
  absl::StatusOr<SchemaMismatchesByNode> before = SchemaMismatches(input);
  if (!before.ok()) return FailedStep(before.status(), kStep);
  for (const auto& [key, reason] : *after) {
    auto same = before->find(key);
    if (same != before->end()) {
      before->erase(same);
      continue;
    }
    const auto& [graph_path, node_name, op_type] = key;
    return FailedStep(absl::FailedPreconditionError(absl::StrCat(
                          "the legalized model would hold a node that does not match its schema: ", op_type,
                          node_name.empty() ? std::string() : absl::StrCat(" '", node_name, "'"), " (graph ",
                          graph_path, ") ", reason)),
                      kStep, op_type, node_name, graph_path);
  }
  return std::nullopt;
}

}  // namespace

absl::Status TargetSession::StartVerification(std::future<absl::Status>& input_check) {
  if (options_.verify) verification_.emplace(planned_.concurrent_proofs, options_);
  return input_check.get();
}

SessionEnd TargetSession::TransformCopy() {
  aside_.emplace(model_);
  result_ = model_;
  absl::StatusOr<std::vector<ValuesToCome>> transformed =
      Transform(planned_.passes, current_, planned_.target, options_, *aside_, result_, opset_move_, move_to_prove_,
                opset_move_changes_);
  if (!transformed.ok()) {
    return RollBack(FailedStep(std::move(transformed).status(), internal::TargetFailure::Step::kTransform));
  }
  values_to_come_ = std::move(*transformed);
  if (std::optional<std::string> unlisted = UnlistIr3InitializerInputs(model_.ir_version(), result_)) {
    legacy_repairs_.push_back(*std::move(unlisted));
  }
  interface_changes_ = DeclareInferredOutputShapes(result_);
  if (std::optional<StepFailure> made_wrong = RefuseNewSchemaMismatches(model_, result_)) {
    return RollBack(std::move(*made_wrong));
  }
  // onnx's check of the result is the run's peak: what the transforms freed goes back to the system first, so that
  // the skeleton and the check's own tables do not come on top of it (scenario 1 of the bench: 3-20 MB).
  ReturnFreedMemoryToSystem();
  auto arena = std::make_unique<google::protobuf::Arena>();
  onnx::ModelProto* skeleton = SkeletonToCheck(result_, *arena);
  proofs_.emplace(verification_, std::move(arena), skeleton, ProofLaunch(options_));
  return {};
}

void TargetSession::StartOpsetMoveProof(const onnx::ModelProto& before) {
  if (!move_to_prove_.has_value()) return;
  const LargeInitializersAside& aside = *aside_;
  proofs_->StartOpsetMoveProof(
      [&before, moved = std::make_shared<const OpsetMoveToProve>(*std::move(move_to_prove_)), &aside,
       &options = options_]() -> absl::StatusOr<OpsetMoveProofResult> {
        ASSIGN_OR_RETURN(const onnx::ModelProto after, moved->After());
        return ProveOpsetMove(before, after, options, [&aside](const std::string& name) { return aside.Find(name); });
      },
      ProofLaunch(options_));
  move_to_prove_.reset();
}

SessionEnd TargetSession::AwaitProofsAndCommit() {
  StartOpsetMoveProof(model_);
  if (absl::Status proven = proofs_->Await(); !proven.ok()) return RollBackAfterProofs(std::move(proven));
  TakeOpsetMoveResult();
  FillDeferred();
  Commit();
  return {};
}

SessionEnd TargetSession::CommitAndUse(const internal::UseLegalized& use) {
  // Where the opset move is to be proved, onnx's check of the result comes first, as the proof waits for it anyway:
  // a target the checker refuses (one of several TryLaterTargets tries) is refused before anything is written.
  if (move_to_prove_.has_value() && !proofs_->AwaitOnnxCheck().ok()) return RollBackAfterProofs(proofs_->Await());
  if (AnyFilledAfterVerification()) {
    if (absl::Status verified = proofs_->AwaitVerification(); !verified.ok()) {
      return RollBackAfterProofs(std::move(verified));
    }
    FillDeferred();
  }
  Commit();
  // The move is proved while the result is written: both only read it, and the set-aside weights the proof
  // reads are the result's own again (LargeInitializersAside::Find). The model as it was is in result_ now.
  StartOpsetMoveProof(result_);
  DeferredTensors streamed;
  for (ValuesToCome& values : values_to_come_) streamed.merge(values.streamed);
  absl::Status used = use(model_, streamed, [this] { return proofs_->Await(); });
  if (used.ok()) used = proofs_->Await();  // in case `use` did not wait
  if (used.ok()) {
    TakeOpsetMoveResult();
    return {};
  }
  // A failure of the proofs is the target's; one of `use` (writing the file) is not.
  if (proofs_->Await().ok()) return {std::move(used), std::nullopt};
  StepFailure failed = ProofFailure(std::move(used));
  return {std::move(failed.status), std::move(failed.why)};
}

void TargetSession::TakeOpsetMoveResult() {
  if (std::optional<OpsetMoveProofResult> proven = proofs_->TakeOpsetMoveResult()) opset_move_ = *std::move(proven);
}

SessionEnd TargetSession::RollBack(StepFailure failure) {
  absl::Status verified = proofs_.has_value()         ? proofs_->AwaitVerification()
                          : verification_.has_value() ? verification_->Finish()
                                                      : absl::OkStatus();
  aside_->Restore(model_);
  if (!verified.ok()) return {std::move(verified), std::nullopt};
  AtTarget(failure.why);
  return {std::move(failure.status), std::move(failure.why)};
}

SessionEnd TargetSession::RollBackAfterProofs(absl::Status failure) {
  aside_->Restore(model_);
  StepFailure failed = ProofFailure(std::move(failure));
  return {std::move(failed.status), std::move(failed.why)};
}

StepFailure TargetSession::ProofFailure(absl::Status failure) const {
  if (proofs_->OpsetMoveProofFailed()) {
    StepFailure failed = FailedStep(std::move(failure), internal::TargetFailure::Step::kTransform);
    AtTarget(failed.why);
    return failed;
  }
  const NodeNamedByOnnx& node = proofs_->NodeNamedByOnnxCheck();
  StepFailure failed =
      FailedStep(std::move(failure), internal::TargetFailure::Step::kOnnxCheck, node.op_type, node.name);
  AtTarget(failed.why);
  return failed;
}

void TargetSession::AtTarget(internal::TargetFailure& why) const {
  why.target = planned_.target;
  // The model as it was and as transformed (as far as it went), whichever of model_ and result_ holds which
  // (CommitAndUse swapped them): only their op types are read.
  why.next_schema_change = internal::NextSchemaChangeOfOpsIn({&model_, &result_}, planned_.target);
}

void TargetSession::FillDeferred() {
  for (const ValuesToCome& values : values_to_come_) {
    if (values.after_verification) values.after_verification(result_);
  }
}

bool TargetSession::AnyFilledAfterVerification() const {
  return std::any_of(values_to_come_.begin(), values_to_come_.end(),
                     [](const ValuesToCome& values) { return static_cast<bool>(values.after_verification); });
}

void TargetSession::Commit() {
  model_.Swap(&result_);
  aside_->Restore(model_);
}

}  // namespace onnx_legalize
