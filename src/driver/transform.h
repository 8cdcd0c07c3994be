// One target's transformation of a model: the opset move (proved where the model runner can run the model), the
// IR version it needs, and every pass applied.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_TRANSFORM_H_
#define ONNX_LEGALIZE_SRC_DRIVER_TRANSFORM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/large_initializers_aside.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/report.h"
#include "pass/pass.h"
#include "verify/opset_move_proof.h"

namespace onnx_legalize {

// Raises the IR version of `model` to what onnx's checker wants of it: 3 where it imports opsets (IR 1-2 could
// not), 4 where a graph holds an initializer it does not list as an input (IR 3 required them listed).
void RaiseIrVersionAsTheCheckerNeeds(onnx::ModelProto& model);

// The opset move's form right after it (before the passes apply), kept for its proof (verify/opset_move_proof.h)
// beside the form before it, which is the model as Transform was given it: its caller keeps that (TargetSession
// transforms a copy), and a second copy of a graph of many nodes would cost as much memory again. The proof runs
// last, once the result has passed onnx's check: it may take minutes, and a model the checker refuses is refused
// at once. Until then the form is kept as protobuf's bytes, in a fraction of the memory its messages take, as
// the check holds a copy of the result's graph of its own meanwhile. A light copy: the large initializers are set
// aside.
class OpsetMoveToProve {
 public:
  explicit OpsetMoveToProve(const onnx::ModelProto& after);

  // The moved form, as it was given.
  absl::StatusOr<onnx::ModelProto> After() const;

 private:
  std::string bytes_;
  std::optional<onnx::ModelProto> unserialized_;  // a form past protobuf's 2 GiB, kept as it is
};

// Moves the model to `target` and applies the passes; returns the values they left to fill later. Where the
// model runner can execute the model and Options::verify is on, the moved form goes to `to_prove` (the model as
// given is the form before the move), and what the move did to its nodes to `move_changes`;
// otherwise `opset_move` says why the move is not proven. MoveDefaultOpset is transactional. The passes
// are applied last first: DynamicSlice's new names were chosen while planning, from the model as it was, and
// the removed ops' replacements, which make theirs while applying, must see them.
absl::StatusOr<std::vector<ValuesToCome>> Transform(const std::vector<std::unique_ptr<Pass>>& passes, int64_t current,
                                                    int64_t target, const Options& options,
                                                    const LargeInitializersAside& aside, onnx::ModelProto& model,
                                                    OpsetMoveProofResult& opset_move,
                                                    std::optional<OpsetMoveToProve>& to_prove,
                                                    std::vector<OpsetMoveChange>& move_changes);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_TRANSFORM_H_
