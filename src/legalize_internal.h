// Legalize() for LegalizeFile: the legalized model goes to the caller while the proofs that it is right
// (verification of every change, onnx's checker) still run on other threads, so that writing the output
// and proving it overlap. The caller lets its work become permanent only once the proofs hold.
#ifndef ONNX_LEGALIZE_SRC_LEGALIZE_INTERNAL_H_
#define ONNX_LEGALIZE_SRC_LEGALIZE_INTERNAL_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize::internal {

// Waits for the proofs; their first failure, or OK. Any number of calls give the same answer.
using AwaitProofs = std::function<absl::Status()>;

// Works with the legalized model (an unchanged one too, when there is nothing to legalize). It must call
// `await_proofs` before it makes anything permanent, and fail with its error.
using UseLegalized = std::function<absl::Status(onnx::ModelProto& legalized, const AwaitProofs& await_proofs)>;

// Legalize(model, options), handing the result to `use` as soon as it exists; returns the report once the
// proofs hold and `use` succeeded. On failure `model` is in an unspecified state (it may be the legalized
// model): unlike Legalize(), this is for callers that discard it then.
absl::StatusOr<Report> LegalizeAndUse(onnx::ModelProto& model, const Options& options, const UseLegalized& use);

}  // namespace onnx_legalize::internal

#endif  // ONNX_LEGALIZE_SRC_LEGALIZE_INTERNAL_H_
