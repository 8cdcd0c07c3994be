// Legalize() for LegalizeFile: the legalized model goes to the caller while the proofs that it is right
// (verification of every change, onnx's checker) still run on other threads, so that writing the output
// and proving it overlap. The caller lets its work become permanent only once the proofs hold.
#ifndef ONNX_LEGALIZE_SRC_LEGALIZE_INTERNAL_H_
#define ONNX_LEGALIZE_SRC_LEGALIZE_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eval/deferred_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize::internal {

// Waits for the proofs; their first failure, or OK. Any number of calls give the same answer.
using AwaitProofs = std::function<absl::Status()>;

// Works with the legalized model (an unchanged one too, when there is nothing to legalize), whose large folds
// are stubs that `streamed` computes, and proves, as they are written (eval/deferred_tensor.h). It must call
// `await_proofs` before it makes anything permanent, and fail with its error.
using UseLegalized = std::function<absl::Status(onnx::ModelProto& legalized, const DeferredTensors& streamed,
                                                const AwaitProofs& await_proofs)>;

// Legalize(model, options), handing the result to `use` as soon as it exists; returns the report once the
// proofs hold and `use` succeeded. On failure `model` is in an unspecified state (it may be the legalized
// model): unlike Legalize(), this is for callers that discard it then. The model `use` gets is only for
// writing: its large folds are stubs (see UseLegalized).
absl::StatusOr<Report> LegalizeAndUse(onnx::ModelProto& model, const Options& options, const UseLegalized& use);

// A failure that another target opset may avoid (onnx's version converter, or its checker and strict shape
// inference on the result) carries the target it happened at under this type URL.
inline constexpr char kTargetFailurePayloadUrl[] = "type.googleapis.com/onnx_legalize.TargetFailure";

// `status` marked as having failed at `target` for a reason a later target may avoid (a verification failure
// is never: it says the library is wrong).
absl::Status AtTarget(absl::Status status, int64_t target);

// Runs `attempt` with `options`; when they leave the target to the library and it fails at a target for a
// reason a later one may avoid, runs it again at each next target up to 17 until one succeeds, or until two
// targets in a row fail the same way (but for opset numbers). The report lists the targets passed over;
// when none succeeds, the first failure is returned. `attempt` must leave
// nothing behind when it fails (Legalize is transactional; LegalizeFile commits nothing).
absl::StatusOr<Report> TryLaterTargets(const Options& options,
                                       const std::function<absl::StatusOr<Report>(const Options&)>& attempt);

}  // namespace onnx_legalize::internal

#endif  // ONNX_LEGALIZE_SRC_LEGALIZE_INTERNAL_H_
