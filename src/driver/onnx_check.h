// Where the driver calls onnx's checker and strict shape inference, and reads what they say. onnx throws its
// verdict as text; what the driver decides by (which node onnx failed) is read out of that text here, once,
// and passed on typed.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_ONNX_CHECK_H_
#define ONNX_LEGALIZE_SRC_DRIVER_ONNX_CHECK_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The node onnx names in its verdict: its op type and name, each "" where onnx names none.
struct NodeNamedByOnnx {
  std::string op_type;
  std::string name;
};

// What onnx's checker and strict shape inference say of a model: OK, or FailedPrecondition with onnx's own
// words, and the node they name.
struct OnnxVerdict {
  absl::Status status;
  NodeNamedByOnnx node;
};

// Runs onnx's full check (checker::check_model with full_check, as Python's check_model(full_check=True)) on
// a light copy of a model (graph/model_skeleton.h), which it changes.
OnnxVerdict CheckWithOnnx(onnx::ModelProto& skeleton);

// onnx's checker alone on a model as it is: OK, or FailedPrecondition with why it rejects it.
absl::Status InputCheckerVerdict(const onnx::ModelProto& model);

// The node onnx's message names on its first line (the rest is context: a dump of the node). onnx's
// shape inference throws a string, "... (op_type:Constant, node name: labels): ...", not a field: this is
// the one place that reads it. Only that form is read; a message that names no node so (the checker's own
// errors, say) gives {"", ""}.
NodeNamedByOnnx ReadNodeNamedByOnnx(absl::string_view message);

// The first line of one of onnx's messages (the rest is context: a dump of the node), for the report.
std::string FirstLine(absl::string_view message);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_ONNX_CHECK_H_
