#include "driver/proofs_under_way.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/return_freed_memory.h"
#include "core/status_macros.h"
#include "graph/model_skeleton.h"

namespace onnx_legalize {

ConcurrentVerification::ConcurrentVerification(std::vector<ProofJob> jobs, const Options& options)
    : options_(options), jobs_(std::move(jobs)) {
  statuses_.resize(jobs_.size());
  if (options.use_threads) helper_ = std::async(std::launch::async, [this] { Work(); });
}

ConcurrentVerification::~ConcurrentVerification() {
  stop_ = true;
  if (helper_.valid()) helper_.wait();
}

absl::Status ConcurrentVerification::Finish() {
  Work();
  if (helper_.valid()) helper_.get();
  for (absl::Status& status : statuses_) RETURN_IF_ERROR(status);
  return absl::OkStatus();
}

void ConcurrentVerification::Work() {
  for (size_t i = next_++; i < jobs_.size() && !stop_; i = next_++) {
    statuses_[i] = jobs_[i](options_);
  }
}

Proofs::Proofs(std::optional<ConcurrentVerification>& verification, std::unique_ptr<google::protobuf::Arena> arena,
               onnx::ModelProto* skeleton, std::launch launch)
    : verification_(verification) {
  if (skeleton == nullptr) return;
  // The skeleton goes as soon as it is checked: it is as large as the result's graph, and the opset move's proof,
  // which comes next, holds copies of its own. Its pages go back to the system at once.
  onnx_check_ = std::async(launch, [arena = std::move(arena), skeleton]() mutable {
                  OnnxVerdict verdict = CheckWithOnnx(*skeleton);
                  arena.reset();
                  ReturnFreedMemoryToSystem();
                  return verdict;
                }).share();
}

absl::Status Proofs::AwaitVerification() {
  if (!verified_.has_value()) {
    verified_ = verification_.has_value() ? verification_->Finish() : absl::OkStatus();
  }
  return *verified_;
}

void Proofs::StartOpsetMoveProof(OpsetMoveProver prove, std::launch launch) {
  opset_move_proof_ = std::async(
      launch,
      [onnx_check = onnx_check_, prove = std::move(prove)]() -> std::optional<absl::StatusOr<OpsetMoveProofResult>> {
        if (onnx_check.valid() && !onnx_check.get().status.ok()) return std::nullopt;
        return prove();
      });
}

absl::Status Proofs::Await() {
  RETURN_IF_ERROR(AwaitVerification());
  RETURN_IF_ERROR(AwaitOnnxCheck());
  return AwaitOpsetMoveProof();
}

absl::Status Proofs::AwaitOpsetMoveProof() {
  if (opset_move_proof_.valid()) opset_move_ = opset_move_proof_.get();
  return opset_move_.has_value() ? opset_move_->status() : absl::OkStatus();
}

std::optional<OpsetMoveProofResult> Proofs::TakeOpsetMoveResult() {
  if (!opset_move_.has_value() || !opset_move_->ok()) return std::nullopt;
  return *std::move(*opset_move_);
}

absl::Status Proofs::AwaitOnnxCheck() {
  if (onnx_check_.valid()) onnx_verdict_ = onnx_check_.get();
  if (!onnx_verdict_.status.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the legalized model would not pass onnx's checker and strict shape inference: ",
                     onnx_verdict_.status.message()));
  }
  return absl::OkStatus();
}

onnx::ModelProto* SkeletonToCheck(const onnx::ModelProto& result, google::protobuf::Arena& arena) {
  onnx::ModelProto* skeleton = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  BuildModelSkeleton(result, *skeleton);
  return skeleton;
}

}  // namespace onnx_legalize
