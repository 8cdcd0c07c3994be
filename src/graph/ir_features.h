// The lowest IR version that can hold what a model holds: moving a model down to an older opset lowers its IR version
// to what runtimes of that opset's era read, but never below what its contents need (a model-local function needs
// IR 8, a float8 tensor IR 9, ...), from the history of the IR in onnx 1.23's onnx.proto.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_IR_FEATURES_H_
#define ONNX_LEGALIZE_SRC_GRAPH_IR_FEATURES_H_

#include <cstdint>

#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The lowest IR version with every field and element type `model` uses (3 for a model using only what IR 3 had).
int64_t IrVersionItsContentsNeed(const onnx::ModelProto& model);

// The IR version a model moved down to default opset `target` is written with: the IR of the onnx release that
// introduced `target` (MinIrVersionForOpset), or what its contents need where that is more; never above its own.
int64_t IrVersionAfterMovingDown(const onnx::ModelProto& model, int64_t target);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_IR_FEATURES_H_
