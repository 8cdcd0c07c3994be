// What --check finds in a model: every node whose op has no schema at the opset its model imports.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_FINDINGS_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_FINDINGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Every node whose op has no schema at the opset its model imports for the op's domain (DynamicSlice and
// the other removed experimental ops among them), for `--check`. Nodes of the main graph, of If/Loop/Scan
// bodies at any depth and of model-local functions are checked, in graph order (depth first).
//  - "" and "ai.onnx" are one domain. A node whose domain the model does not import is a finding.
//  - The op must have a schema at the imported opset: absent (removed or never existed), introduced only at
//    a later opset (Resize at 9), or deprecated there (Upsample at 10+) are findings.
//  - Domains onnx has no schemas for at all (com.microsoft, a vendor's) are not judged: their ops are not
//    removed ONNX ops, and only the runtime that defines them can say. Calls to model-local functions too.
// InvalidArgument when the opset imports themselves are malformed (a version < 1, one domain imported at
// two versions).
struct CheckFinding {
  std::string graph_path;  // as in NodeReport; "function:<domain>.<name>" for a model-local function body
  std::string node_name;
  std::string op_type;
  std::string domain;
  int64_t opset = 0;   // the opset the model imports for the node's domain; 0 when it imports none
  std::string reason;  // why the node has no schema, in a few words ("removed from onnx", ...)
  // Whether legalizing fixes it (a removed op onnx-legalize folds or rewrites), and how, in a few words;
  // "" when it cannot, and the model is refused.
  bool fixable = false;
  std::string fix;
  // The op has a schema at the opset, but the node does not match it (attributes, input or output counts):
  // a fault of the node, not a removed op. Legalizing passes such a node through as it is (it refuses a
  // result only where legalizing made a node mismatch).
  bool mismatches_schema = false;
};
// How the reason of a finding starts when the model is written as ONNX's first exporters wrote it (an implied
// opset, untyped attributes, nodes out of order, legacy attributes) and legalizing writes it as onnx reads it.
inline constexpr char kLegacyEraReasonPrefix[] = "written as ONNX's first exporters wrote it";
absl::StatusOr<std::vector<CheckFinding>> CheckModel(const onnx::ModelProto& model);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_FINDINGS_H_
