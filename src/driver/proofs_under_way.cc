#include "driver/proofs_under_way.h"

#include <utility>

#include "absl/strings/str_cat.h"
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
    : verification_(verification), arena_(std::move(arena)) {
  if (skeleton != nullptr) {
    onnx_check_ = std::async(launch, [skeleton] { return CheckWithOnnx(*skeleton); });
  }
}

absl::Status Proofs::AwaitVerification() {
  if (!verified_.has_value()) {
    verified_ = verification_.has_value() ? verification_->Finish() : absl::OkStatus();
  }
  return *verified_;
}

absl::Status Proofs::Await() {
  RETURN_IF_ERROR(AwaitVerification());
  return AwaitOnnxCheck();
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
