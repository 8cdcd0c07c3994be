// CheckModel (onnx_legalize/findings.h) for the library's own passes, which have validated the model already.
#ifndef ONNX_LEGALIZE_SRC_CHECK_CHECK_MODEL_H_
#define ONNX_LEGALIZE_SRC_CHECK_CHECK_MODEL_H_

#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/findings.h"

namespace onnx_legalize {

// CheckModel, which is this with `validate`: the model's findings, after ValidateInitializers
// (graph/graph_validation.h) and with removed nodes judged by their rules too when `validate`. Legalizing validates
// its input whole first (driver/legalize.cc), its rules refuse a node in their own words as they plan it, and it
// checks models it made itself, so its passes leave that out.
absl::StatusOr<std::vector<CheckFinding>> CheckModelNodes(const onnx::ModelProto& model, bool validate);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_CHECK_CHECK_MODEL_H_
