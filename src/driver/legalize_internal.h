// Legalize() for LegalizeFile: the legalized model goes to the caller while the proofs that it is right
// (verification of every change, onnx's checker) still run on other threads, so that writing the output
// and proving it overlap. The caller lets its work become permanent only once the proofs hold.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_LEGALIZE_INTERNAL_H_
#define ONNX_LEGALIZE_SRC_DRIVER_LEGALIZE_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

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
// `await_proofs` before it makes anything permanent, and fail with its error; until then it may only read the
// model, which the proofs read too (the opset move's proof reads its weights where they lie).
using UseLegalized = std::function<absl::Status(onnx::ModelProto& legalized, const DeferredTensors& streamed,
                                                const AwaitProofs& await_proofs)>;

// Why an attempt failed at its target, in fields: which step failed, with which code, and the node it failed
// at where that step names one. TryLaterTargets decides by these alone; the message is only reported.
struct TargetFailure {
  enum class Step {
    kTransform,       // moving the opset (onnx's version converter) or writing the plan into the moved model
    kSchemaMismatch,  // the result would hold a node made not to match its schema
    kOnnxCheck,       // onnx's checker or strict shape inference rejects the result
  };
  int64_t target = 0;
  Step step = Step::kTransform;
  absl::StatusCode code = absl::StatusCode::kUnknown;
  std::string op_type;  // of the node that failed; "" where the step names none
  std::string node;     // its name
  std::string graph;    // its graph's path; "" where the step names none (onnx names no graph)
  // The lowest opset above the target, up to kMaxTargetOpset, at which onnx defines anew an op of the default
  // domain that the model holds (before or after the transformation, in any graph); 0 when none. The op onnx's
  // check names may be failed by its producer (Conv, whose input a Relu-1 leaves untyped, which Relu-6 types), so
  // while the search heads for an opset that defines a failed op anew, it tries this one first, whatever failed.
  int64_t next_schema_change = 0;

  // The same reason as `other` (at another target, as the two failures are compared): the step, the code and the
  // node (every field but the target and next_schema_change, which depend on the target).
  bool SameReasonAs(const TargetFailure& other) const;
};

// One attempt to legalize at one target (the one Options names, or the library's choice): the report, or the
// failure and, when another target may avoid it (onnx's version converter, or its checker and strict shape
// inference on the result, failed), why it failed there. The reason travels beside the failure, not in it:
// the caller's error is the failure as it was.
struct Attempt {
  // Implicit, so that a function returning an Attempt returns a report or (with the status macros) a failure
  // that no other target avoids.
  Attempt(Report done) : report(std::move(done)) {}              // NOLINT(google-explicit-constructor)
  Attempt(absl::Status failure) : report(std::move(failure)) {}  // NOLINT(google-explicit-constructor)
  // `failure` at `why.target`, which another target may avoid; a verification failure never is (it says the
  // library is wrong, at every target).
  static Attempt FailedAt(absl::Status failure, TargetFailure why);

  absl::StatusOr<Report> report;
  std::optional<TargetFailure> failed_at_target;  // set only for a failure another target may avoid
};

// Legalize(model, options), handing the result to `use` as soon as it exists; returns the report once the
// proofs hold and `use` succeeded. On failure `model` is in an unspecified state (it may be the legalized
// model): unlike Legalize(), this is for callers that discard it then. The model `use` gets is only for
// writing: its large folds are stubs (see UseLegalized).
Attempt LegalizeAndUse(onnx::ModelProto& model, const Options& options, const UseLegalized& use);

// The lowest opset above `opset`, up to kMaxTargetOpset, at which onnx defines anew an op of the default domain
// that one of `models` holds in any graph (subgraphs included), or 0 when none: TargetFailure::next_schema_change.
int64_t NextSchemaChangeOfOpsIn(std::initializer_list<const onnx::ModelProto*> models, int64_t opset);

// Runs `attempt` with `options`; when they leave the target to the library and it fails at a target for a
// reason a later one may avoid, runs it again at each next target up to 17 (or, where onnx's check failed a
// node of an op a later opset defines anew, at that opset, or at the lower TargetFailure::next_schema_change)
// until one succeeds, or until two targets in a row fail for the same reason (TargetFailure::SameReasonAs) and
// no op onnx failed at a target passed over is defined anew at a later opset. The report lists the targets passed over;
// when none succeeds, the first failure is returned. `attempt` must leave
// nothing behind when it fails (Legalize is transactional; LegalizeFile commits nothing).
absl::StatusOr<Report> TryLaterTargets(const Options& options, const std::function<Attempt(const Options&)>& attempt);

}  // namespace onnx_legalize::internal

#endif  // ONNX_LEGALIZE_SRC_DRIVER_LEGALIZE_INTERNAL_H_
