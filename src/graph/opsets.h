// The default-domain opset a model imports, looked up one way for the whole library.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_OPSETS_H_
#define ONNX_LEGALIZE_SRC_GRAPH_OPSETS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The version `model` imports for the default domain ("" or its alias "ai.onnx"). InvalidArgument when it
// imports none, or imports it twice at different versions (twice at one version is harmless).
absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_OPSETS_H_
