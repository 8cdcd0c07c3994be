// Proves each planned change by executing both forms and comparing them bit for bit.
//
// - A fold: its value was computed with the DynamicSlice reference kernel; the Slice kernel recomputes it
//   from the same constants, and the bytes must match.
// - A rewrite: seeded trials run the original node (DynamicSlice reference) and the replacement node
//   (Slice kernel, on the replacement's own inputs: normalized axes, Slice-1 attributes) on generated
//   inputs: data of the known type and shape (unknown dims and types synthesized), constant indices as
//   they are, dynamic ones drawn from [-dim-2, dim+2] plus the index type's min and max.
//
// A mismatch is an Internal error whose message starts with "verification failed" and names the node and
// the inputs of the failing trial.
// It carries a payload under kVerificationFailurePayloadUrl (core/error_kind.h; the node's label), which
// IsVerificationFailure tests: a caller that adds context to the message keeps the payloads.
#ifndef ONNX_LEGALIZE_SRC_VERIFY_DYNAMIC_SLICE_VERIFY_H_
#define ONNX_LEGALIZE_SRC_VERIFY_DYNAMIC_SLICE_VERIFY_H_

#include "absl/status/status.h"
#include "core/error_kind.h"
#include "onnx_legalize/options.h"
#include "rules/dynamic_slice.h"

namespace onnx_legalize {

// What a change's verification text (and the report's opset_move) says with Options::verify false.
inline constexpr char kVerificationSkipped[] = "skipped (verification off)";
// Why the opset move's proof did not execute with Options::verify false (Report::opset_move_proof.why_not).
inline constexpr char kVerificationOff[] = "verification off";

// Verifies one change of a plan, filling its `verification` text. The DynamicSlice pass runs one job of
// this per change, on whichever thread the driver gives it (pass/passes.cc).
absl::Status VerifyDynamicSliceChange(DynamicSliceChange& change, const Options& options);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_VERIFY_DYNAMIC_SLICE_VERIFY_H_
