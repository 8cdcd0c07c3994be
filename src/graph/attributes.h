// Reading a node's attributes by name: what every stage that reads nodes asks first (the era's repairs, the
// rules' guard clauses, the model runner's kernels), so it stands on the graph floor once.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_ATTRIBUTES_H_
#define ONNX_LEGALIZE_SRC_GRAPH_ATTRIBUTES_H_

#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The attribute of `node` named `name`, or null when it has none.
const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, absl::string_view name);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_ATTRIBUTES_H_
