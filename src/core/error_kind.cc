// ErrorKindOf and the statuses that carry a kind a code cannot tell (core/error_kind.h).
#include "core/error_kind.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "onnx_legalize/error_kind.h"

namespace onnx_legalize {

absl::Status InvalidRequestError(absl::string_view field, absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kInvalidRequestPayloadUrl, absl::Cord(field));
  return status;
}

absl::Status NoFormAtOpsetError(int64_t opset, absl::string_view message) {
  absl::Status status = absl::FailedPreconditionError(message);
  status.SetPayload(kNoFormAtOpsetPayloadUrl, absl::Cord(absl::StrCat(opset)));
  return status;
}

absl::Status VerificationFailure(absl::string_view label, absl::string_view message) {
  absl::Status status = absl::InternalError(absl::StrCat("verification failed: ", message));
  status.SetPayload(kVerificationFailurePayloadUrl, absl::Cord(label));
  return status;
}

absl::Status WithMessage(const absl::Status& status, absl::string_view message) {
  absl::Status rebuilt(status.code(), message);
  status.ForEachPayload(
      [&rebuilt](absl::string_view url, const absl::Cord& payload) { rebuilt.SetPayload(url, payload); });
  return rebuilt;
}

ErrorKind ErrorKindOf(const absl::Status& status) {
  if (status.ok()) return ErrorKind::kOk;
  // The marks first, each on the code it is made with: a caller that adds to a message keeps the payloads
  // (LegalizeFile names the file), and a mark on another code is not one of ours.
  if (status.code() == absl::StatusCode::kInvalidArgument && status.GetPayload(kInvalidRequestPayloadUrl)) {
    return ErrorKind::kInvalidRequest;
  }
  if (status.code() == absl::StatusCode::kInternal && status.GetPayload(kVerificationFailurePayloadUrl)) {
    return ErrorKind::kVerificationFailed;
  }
  if (status.code() == absl::StatusCode::kFailedPrecondition && status.GetPayload(kNoFormAtOpsetPayloadUrl)) {
    return ErrorKind::kNoFormAtOpset;
  }
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kDataLoss: return ErrorKind::kInvalidModel;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kUnimplemented: return ErrorKind::kNotLegalizable;
    case absl::StatusCode::kResourceExhausted: return ErrorKind::kResourceLimit;
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kCancelled: return ErrorKind::kFileSystem;
    default: return ErrorKind::kInternal;
  }
}

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk: return "ok";
    case ErrorKind::kInvalidRequest: return "invalid_request";
    case ErrorKind::kInvalidModel: return "invalid_model";
    case ErrorKind::kNotLegalizable: return "not_legalizable";
    case ErrorKind::kNoFormAtOpset: return "no_form_at_opset";
    case ErrorKind::kVerificationFailed: return "verification_failed";
    case ErrorKind::kResourceLimit: return "resource_limit";
    case ErrorKind::kFileSystem: return "file_system";
    case ErrorKind::kInternal: return "internal";
  }
  return "internal";
}

std::string InvalidRequestField(const absl::Status& status) {
  const auto field = status.GetPayload(kInvalidRequestPayloadUrl);
  return field.has_value() ? std::string(*field) : std::string();
}

bool IsVerificationFailure(const absl::Status& status) { return ErrorKindOf(status) == ErrorKind::kVerificationFailed; }

}  // namespace onnx_legalize
