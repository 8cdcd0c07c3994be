// model_io's internals that tests reach: the model size past which SaveModel moves weights to a data file
// is protobuf's 2 GiB limit, which no test can fill in memory; this lets one pass a smaller limit.
#ifndef ONNX_LEGALIZE_SRC_MODEL_IO_INTERNAL_H_
#define ONNX_LEGALIZE_SRC_MODEL_IO_INTERNAL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize::internal {

// SaveModel(model, path, options), with weights moved to a data file when the model would serialize to
// more than `max_model_bytes` (SaveModel passes protobuf's limit, INT_MAX).
absl::Status SaveModelWithLimit(onnx::ModelProto& model, const std::string& path, const SaveOptions& options,
                                int64_t max_model_bytes);

}  // namespace onnx_legalize::internal

#endif  // ONNX_LEGALIZE_SRC_MODEL_IO_INTERNAL_H_
