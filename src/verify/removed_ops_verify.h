// Proves the removed-op rules' plan (rules/removed_op_plan.h) by executing both forms of each change: the
// replacement, run by the library's evaluator, against the rule's reference kernel.
#ifndef ONNX_LEGALIZE_SRC_VERIFY_REMOVED_OPS_VERIFY_H_
#define ONNX_LEGALIZE_SRC_VERIFY_REMOVED_OPS_VERIFY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "onnx_legalize/options.h"
#include "rules/removed_op_plan.h"

namespace onnx_legalize {

// Proves each change at `target` (the default opset the model will have) on seeded trials (rewrites) or on the
// constants (folds). Internal error starting "verification failed" on a mismatch, naming the node and the
// trial (IsVerificationFailure).
absl::Status VerifyRemovedOps(RemovedOpPlan& plan, int64_t target, const Options& options);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_VERIFY_REMOVED_OPS_VERIFY_H_
