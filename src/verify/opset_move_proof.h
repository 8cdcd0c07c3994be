// Proves an opset move (onnx's version converter with the upgrade's repairs, upgrade/opset_upgrade.h) the way each
// removed node's change is proved: by executing both forms. The model before the move and after it run on
// the same seeded inputs in the library's model runner (eval/model_runner.h), whose kernels follow each op
// version's own spec (PRelu-6's per-channel slope against PRelu-7's broadcasting, Slice-1's attributes
// against Slice-10's inputs, ...), and every output must be the same bit for bit (a NaN matches any NaN).
// The removed ops and DynamicSlice, which the move passes through untouched, run as their reference kernels
// in both. The inputs are drawn as the model reads them (verify/proof_inputs.h). An ai.onnx.ml ZipMap whose output
// no node reads is compared by its input, the scores (its sequence of maps is more than the runner's values
// hold, and the move leaves ai.onnx.ml nodes as they are); the report names those outputs.
//
// Where the proof cannot run, it says why (the first op the runner has no kernel for, inputs it cannot draw,
// constants it is not given, past its budget: Options::proof_budget), and the report carries that text and
// what ran (input sets, nodes, work, seconds). The move stays covered by onnx's
// checker and strict shape inference, and the differential tests against ONNX Runtime.
#ifndef ONNX_LEGALIZE_SRC_VERIFY_OPSET_MOVE_PROOF_H_
#define ONNX_LEGALIZE_SRC_VERIFY_OPSET_MOVE_PROOF_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "eval/model_runner.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/external_data_reader.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/report.h"
#include "verify/proof_initializers.h"

namespace onnx_legalize {

// Seeded input sets each proof runs.
inline constexpr int kOpsetMoveTrials = 3;

// Why the proof could not execute `model` whatever its inputs, or nullopt when it can: checked before the
// model is copied for the proof. `model` is the one before the move, as Legalize transforms it: its large
// initializers are stubs whose data `set_aside` gives (proof_initializers.h), and a file's external data is
// read through `external_data` (Options::external_data); external data neither has keeps it from running.
std::optional<std::string> WhyOpsetMoveCannotBeExecuted(const onnx::ModelProto& model,
                                                        const SetAsideInitializers& set_aside = nullptr,
                                                        const ExternalDataReader* external_data = nullptr);

// What the proof says: the report's text and its counts.
struct OpsetMoveProofResult {
  std::string text;      // Report::opset_move
  OpsetMoveProof proof;  // Report::opset_move_proof
};

// The result of a proof that did not run at all: "not executed: " and `why`, nothing counted.
OpsetMoveProofResult OpsetMoveNotExecuted(const std::string& why);

// Runs `before` and `after` (the same model at the old and the new opset) on kOpsetMoveTrials seeded input
// sets (options.verify_seed), or one when the model's fed inputs are large (an image network: see
// opset_move_proof.cc), reading set-aside initializers from `set_aside` and external data through
// options.external_data (each mapped where it lies, not copied), within options.proof_budget: a
// budget the first input set passes leaves the move not executed; one that holds the first set but not all
// runs those that fit. Returns the report's text and counts: what was executed and found identical, or "not
// executed: " and why. When an output differs, or `after` fails where `before` ran, a verification failure
// (IsVerificationFailure) naming the output and the trial.
absl::StatusOr<OpsetMoveProofResult> ProveOpsetMove(const onnx::ModelProto& before, const onnx::ModelProto& after,
                                                    const Options& options,
                                                    const SetAsideInitializers& set_aside = nullptr);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_VERIFY_OPSET_MOVE_PROOF_H_
