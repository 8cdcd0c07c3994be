// The proofs of a transformed model while they run beside the rest of the work: the passes' concurrent proofs on a
// helper thread, onnx's checker on a light copy of the result, and the opset move's proof.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_PROOFS_UNDER_WAY_H_
#define ONNX_LEGALIZE_SRC_DRIVER_PROOFS_UNDER_WAY_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "driver/onnx_check.h"
#include "google/protobuf/arena.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/options.h"
#include "pass/pass.h"
#include "verify/opset_move_proof.h"

namespace onnx_legalize {

// How the proofs run beside the work: on helper threads, or deferred to the caller's thread when they are
// awaited (Options::use_threads).
inline std::launch ProofLaunch(const Options& options) {
  return options.use_threads ? std::launch::async : std::launch::deferred;
}

// Runs the passes' concurrent proofs (the jobs Pass::Verify returned) on a helper thread while the caller goes
// on with other work, then with the caller's help: both take jobs one at a time from a shared counter. Every
// job is independent (its own seeded trials, its own `verification` text), so the outcome is the sequential
// one: Finish() returns the first failure in pass and job order. Verification is the largest part of
// legalizing a model of many rewrites, and the rest (transform, check) does not depend on it. Without
// Options::use_threads the caller does every job in Finish().
class ConcurrentVerification {
 public:
  ConcurrentVerification(std::vector<ProofJob> jobs, const Options& options);
  ConcurrentVerification(const ConcurrentVerification&) = delete;
  ConcurrentVerification& operator=(const ConcurrentVerification&) = delete;
  ~ConcurrentVerification();

  // Does the jobs left, waits for the helper's, and returns the first failure in job order.
  absl::Status Finish();

 private:
  // Takes jobs until none is left (or the verification is abandoned).
  void Work();

  const Options& options_;
  const std::vector<ProofJob> jobs_;
  std::vector<absl::Status> statuses_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::future<void> helper_;
};

// The proofs that a transformed model is right, under way: verification of every change, onnx's checker with
// strict shape inference on a skeleton of the result (when the input passes it), and the opset move's proof
// (once started), each on a thread of its own. Await() returns the first failure in the order the steps would run
// one after the other.
class Proofs {
 public:
  // What proves the opset move: ProveOpsetMove on the model before the move and the moved form, which it owns.
  using OpsetMoveProver = std::function<absl::StatusOr<OpsetMoveProofResult>()>;

  // onnx's check reads `skeleton` (null: no check), which lives on `arena`, freed once the check is done.
  Proofs(std::optional<ConcurrentVerification>& verification, std::unique_ptr<google::protobuf::Arena> arena,
         onnx::ModelProto* skeleton, std::launch launch);

  // Starts `prove`, which runs once onnx's check of the result has passed (the check takes a moment, the proof
  // perhaps minutes: a result the checker refuses is refused at once), and not at all when it fails. What
  // `prove` reads must outlive this object, and not change until Await() returns.
  void StartOpsetMoveProof(OpsetMoveProver prove, std::launch launch);

  // Verification's outcome (waited for once).
  absl::Status AwaitVerification();
  // onnx's check of the result alone (waited for once).
  absl::Status AwaitOnnxCheck();
  // Every proof's: verification's first, then onnx's check of the result, then the opset move's proof.
  absl::Status Await();

  // The node onnx's check of the result failed at, as onnx names it ({"", ""} before Await(), or when it names none).
  const NodeNamedByOnnx& NodeNamedByOnnxCheck() const { return onnx_verdict_.node; }
  // Whether Await() failed in the opset move's proof (the other proofs held).
  bool OpsetMoveProofFailed() const { return opset_move_.has_value() && !opset_move_->ok(); }
  // What the opset move's proof found, once Await() returned OK; nullopt when none was started.
  std::optional<OpsetMoveProofResult> TakeOpsetMoveResult();

 private:
  absl::Status AwaitOpsetMoveProof();

  std::optional<ConcurrentVerification>& verification_;
  std::optional<absl::Status> verified_;
  std::shared_future<OnnxVerdict> onnx_check_;  // shared with the opset move's proof, which waits for it
  OnnxVerdict onnx_verdict_;
  // Declared last: destroyed (joined) first, before what it waits for.
  std::future<std::optional<absl::StatusOr<OpsetMoveProofResult>>> opset_move_proof_;
  std::optional<absl::StatusOr<OpsetMoveProofResult>> opset_move_;
};

// A light copy of `result` for onnx's checker, on `arena`. The result is held to the checker whether or not the
// input passes it: exit 0 means onnx's checker and strict shape inference accept the result.
onnx::ModelProto* SkeletonToCheck(const onnx::ModelProto& result, google::protobuf::Arena& arena);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_PROOFS_UNDER_WAY_H_
