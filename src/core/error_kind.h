// How a status says which ErrorKind it is (onnx_legalize/error_kind.h): the payloads that mark the kinds a
// status code cannot tell, set where the failure is made.
#ifndef ONNX_LEGALIZE_SRC_CORE_ERROR_KIND_H_
#define ONNX_LEGALIZE_SRC_CORE_ERROR_KIND_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace onnx_legalize {

// The type URL of the payload that marks a verification failure (absl::Status::SetPayload); it holds the
// label of the node (or "the opset move") that failed.
inline constexpr char kVerificationFailurePayloadUrl[] = "type.googleapis.com/onnx_legalize.VerificationFailure";

// The type URL of the payload that marks a node with no form at the opset asked for; it holds that opset.
inline constexpr char kNoFormAtOpsetPayloadUrl[] = "type.googleapis.com/onnx_legalize.NoFormAtOpset";

// The type URL of the payload that marks an invalid request; it holds the field's name.
inline constexpr char kInvalidRequestPayloadUrl[] = "type.googleapis.com/onnx_legalize.InvalidRequest";

// InvalidArgument about request field `field` (as the struct spells it), marked kInvalidRequest.
absl::Status InvalidRequestError(absl::string_view field, absl::string_view message);

// FailedPrecondition `message`, marked kNoFormAtOpset: a node of a well-formed model that cannot be expressed at
// opset `opset` (a move down to an opset before its op existed, or past a change onnx has no way back from).
absl::Status NoFormAtOpsetError(int64_t opset, absl::string_view message);

// Internal "verification failed: <message>", marked kVerificationFailed with `label` (what failed) as payload.
absl::Status VerificationFailure(absl::string_view label, absl::string_view message);

// `status` with `message` in place of its own: the same code and every payload. absl::Status cannot change its
// message, and a failure rebuilt from its code and message alone would lose the payload that marks its kind;
// every place that adds context to a failure goes through this.
absl::Status WithMessage(const absl::Status& status, absl::string_view message);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_CORE_ERROR_KIND_H_
