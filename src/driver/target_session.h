// One legalization at the planned target: a copy of the model transformed and proved, then committed, or the
// model rolled back as it was.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_TARGET_SESSION_H_
#define ONNX_LEGALIZE_SRC_DRIVER_TARGET_SESSION_H_

#include <cstdint>
#include <future>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "driver/large_initializers_aside.h"
#include "driver/legalize_internal.h"
#include "driver/planned_passes.h"
#include "driver/proofs_under_way.h"
#include "driver/transform.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/report.h"
#include "pass/pass.h"
#include "verify/opset_move_proof.h"

namespace onnx_legalize {

// How a session at one target ended: OK, or the failure and, when another target may avoid it, why.
struct SessionEnd {
  absl::Status status;
  std::optional<internal::TargetFailure> why;

  internal::Attempt AsAttempt() && {
    return why.has_value() ? internal::Attempt::FailedAt(std::move(status), std::move(*why))
                           : internal::Attempt(std::move(status));
  }
};

// A step's failure at the target: the caller's error, and why in fields (what TryLaterTargets compares; the
// session fills in the target and the next opset at which an op of the model changes).
struct StepFailure {
  absl::Status status;
  internal::TargetFailure why;
};

// One legalization at the planned target, in the order LegalizeImpl calls it: verification of the plan starts,
// a copy of the model (without its large initializers) is transformed, the proofs of the result start (onnx's
// checker on it), and once they hold the copy is committed into the model; or, on any failure, the model is
// rolled back as it was. Failures come in the order the steps would give one after the other: verification's
// first. With CommitAndUse, the legalized model goes to the caller's `use` while the proofs still run.
class TargetSession {
 public:
  TargetSession(onnx::ModelProto& model, PlannedPasses& planned, int64_t current, const Options& options)
      : model_(model), planned_(planned), current_(current), options_(options) {}
  TargetSession(const TargetSession&) = delete;
  TargetSession& operator=(const TargetSession&) = delete;

  // Starts verifying the plan, then waits for `input_check` (onnx's checker on the input, under way since
  // planning began): its verdict.
  absl::Status StartVerification(std::future<absl::Status>& input_check);

  // Transforms a copy of the model, refuses what made a node mismatch its schema, and starts the check of the
  // result. On failure the model is rolled back.
  SessionEnd TransformCopy();

  // Waits for every proof, then commits the result into the model; on failure, rolls back.
  SessionEnd AwaitProofsAndCommit();

  // Commits the result into the model and hands it to `use` while the proofs still run; `use` waits for them
  // before it makes anything permanent. Where a pass's values are filled in only after verification, which reads
  // them, verification is waited for first (and its failure rolls back).
  SessionEnd CommitAndUse(const internal::UseLegalized& use);

  OpsetMoveProofResult& opset_move() { return opset_move_; }
  // What the opset move did to the model's nodes (Report::opset_move_changes).
  std::vector<OpsetMoveChange>& opset_move_changes() { return opset_move_changes_; }
  // The outputs whose declarations the transformation wrote anew (driver/declared_output_shapes.h).
  const std::vector<InterfaceChange>& interface_changes() const { return interface_changes_; }
  // What the transformation wrote anew of the era's habits (driver/ir3_initializer_inputs.h), for
  // Report::legacy_repairs.
  const std::vector<std::string>& legacy_repairs() const { return legacy_repairs_; }

 private:
  // The model as it was (the large initializers' data back in it), and the failure: the target's, unless
  // verification fails too, whose failure comes first.
  SessionEnd RollBack(StepFailure failure);

  // Starts the opset move's proof (move_to_prove_, if any, against `before`, the model as it was, which must not
  // change until the proofs end) among the proofs: it runs once onnx's check of the result has passed, reading the
  // set-aside weights where they lie (aside_, or the model they went back to).
  void StartOpsetMoveProof(const onnx::ModelProto& before);
  // What the opset move's proof found, once the proofs held, into opset_move_.
  void TakeOpsetMoveResult();

  // The model as it was, after the proofs (verification has ended) failed.
  SessionEnd RollBackAfterProofs(absl::Status failure);

  // The proofs' failure: verification's (which no target avoids: Attempt::FailedAt tells it by its kind), onnx's
  // check of the result, failed at the node onnx names, or the opset move's proof (a step of the transformation).
  StepFailure ProofFailure(absl::Status failure) const;

  // Fills in what a failure at the planned target says of the target: the target, and the next opset at which an
  // op of the model changes (TargetFailure::next_schema_change).
  void AtTarget(internal::TargetFailure& why) const;

  // The values the passes fill in only once verification (which reads them) is over, moved into the result.
  void FillDeferred();
  bool AnyFilledAfterVerification() const;

  // The result becomes the model, with the large initializers' data.
  void Commit();

  onnx::ModelProto& model_;
  PlannedPasses& planned_;
  const int64_t current_;
  const Options& options_;
  OpsetMoveProofResult opset_move_;
  std::vector<OpsetMoveChange> opset_move_changes_;
  std::vector<InterfaceChange> interface_changes_;
  std::vector<std::string> legacy_repairs_;
  // Declared before the verification, so that they outlive it on every path: the plan's large constants view the
  // bytes of the model's initializers (GraphScope::FindConstant), which move into `aside_` and on into `result_`'s
  // stubs, and verification reads them until it is joined.
  std::optional<LargeInitializersAside> aside_;
  onnx::ModelProto result_;
  std::optional<ConcurrentVerification> verification_;
  std::optional<Proofs> proofs_;
  std::vector<ValuesToCome> values_to_come_;       // what Transform's passes left to fill later
  std::optional<OpsetMoveToProve> move_to_prove_;  // until its proof starts
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_TARGET_SESSION_H_
