// The kind of every failure the library reports, for callers that act on it without matching messages.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_ERROR_KIND_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_ERROR_KIND_H_

#include <string>

#include "absl/status/status.h"

namespace onnx_legalize {

// What kind of failure a status of this library reports, for callers that act on it (the CLI's exit codes,
// the Python module's exception types) without matching messages. Two kinds are marked by a payload where the
// failure is made (kInvalidRequest, kVerificationFailed); the others follow from the status code, which the
// library picks by the same rule everywhere.
enum class ErrorKind {
  kOk,                  // not a failure
  kInvalidRequest,      // the caller's request, not the model: an option out of range or contradicting
                        // another (ValidateOptions, ValidateSaveOptions), an output that is the input file
  kInvalidModel,        // the model or its external data is malformed (InvalidArgument, OutOfRange, DataLoss)
  kNotLegalizable,      // a well-formed model that cannot be legalized as asked (FailedPrecondition, Unimplemented)
  kNoFormAtOpset,       // a node of a well-formed model has no form at the target opset asked for, below the model's
                        // own (FailedPrecondition): its op did not exist yet there, or nothing moves it back that far
  kVerificationFailed,  // a legalized node, or the opset move, does not compute what the original did
  kResourceLimit,       // a size limit (ResourceExhausted): protobuf's 2 GiB, an allocation bound
  kFileSystem,          // a file could not be found, read or written (NotFound, PermissionDenied, ...)
  kInternal,            // a broken invariant of the library itself
};
ErrorKind ErrorKindOf(const absl::Status& status);

// A stable lower-case name of `kind` ("invalid_request", "verification_failed", ...), for logs and bindings.
const char* ErrorKindName(ErrorKind kind);

// The request field a kInvalidRequest status is about, spelled as the struct field is ("max_fold_bytes",
// "target_opset", "external_data_name", "output_path"); "" for any other status. The CLI names its flag by it.
std::string InvalidRequestField(const absl::Status& status);

// True when `status` (from Legalize or LegalizeFile) says verification failed: ErrorKindOf is
// kVerificationFailed. Such a status is Internal and its message starts "verification failed".
bool IsVerificationFailure(const absl::Status& status);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_ERROR_KIND_H_
