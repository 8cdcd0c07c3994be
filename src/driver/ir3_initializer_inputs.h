// Initializers that IR 3 made list as graph inputs, unlisted when legalizing raises the IR version past 3.
//
// IR 3 (onnx 1.1-1.3) required every initializer of a graph to be listed among its inputs too, and the runtimes
// of that era never let a caller feed one: ONNX Runtime still treats an IR-3 model's initializers as constants.
// From IR 4 an initializer that is listed as an input is only a default, which a caller may override; ONNX
// Runtime then neither folds it nor fuses the nodes that read it, and a moved model's outputs differ from the
// original's in their last bits (a Conv and its BatchNormalization no longer fused, say). Unlisted, the weights
// stay the constants they were, and the inputs a caller feeds are the same as before.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_IR3_INITIALIZER_INPUTS_H_
#define ONNX_LEGALIZE_SRC_DRIVER_IR3_INITIALIZER_INPUTS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// When `ir_version_before` is 3 or less and `model` is at IR 4 or more, takes every main-graph input that names
// an initializer out of the graph's inputs; returns the line for Report::legacy_repairs, or nothing when no
// input was taken out. Subgraph inputs are left alone: a Loop or Scan body's inputs are bound by position.
std::optional<std::string> UnlistIr3InitializerInputs(int64_t ir_version_before, onnx::ModelProto& model);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_IR3_INITIALIZER_INPUTS_H_
