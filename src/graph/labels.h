// How the opset upgrade names a node and a graph in its messages, written once for every part of it and for
// the check of its input (graph/graph_validation.h, ValidateGraphsForConverter), the way the rest of the tool names
// them: graphs by their path from "main" (a subgraph by its own name, or "<node>.<attribute>" when it has
// none, as SubgraphPathSegment says), nodes by op type and name, or by the output they produce. Internally
// a graph's path is "" for the main graph, and its segments below it joined by '/'.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_LABELS_H_
#define ONNX_LEGALIZE_SRC_GRAPH_LABELS_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "graph/graph_scope.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize::opset_upgrade {

// "Relu 'name'", or "Relu producing 'output'" for an unnamed node, or "Relu (unnamed)".
inline std::string NodeLabel(const onnx::NodeProto& node) {
  if (!node.name().empty()) return absl::StrCat(node.op_type(), " '", node.name(), "'");
  if (node.output_size() > 0 && !node.output(0).empty()) {
    return absl::StrCat(node.op_type(), " producing '", node.output(0), "'");
  }
  return absl::StrCat(node.op_type(), " (unnamed)");
}

inline std::string GraphLabel(const std::string& path) {
  return path.empty() ? kMainGraphPath : absl::StrCat(kMainGraphPath, "/", path);
}

// The path of `subgraph`, which attribute `attribute` of `node` (in the graph at `path`) holds.
inline std::string SubgraphPath(const std::string& path, const onnx::NodeProto& node, const std::string& attribute,
                                const onnx::GraphProto& subgraph) {
  const std::string segment = SubgraphPathSegment(node, attribute, subgraph);
  return path.empty() ? segment : absl::StrCat(path, "/", segment);
}

}  // namespace onnx_legalize::opset_upgrade

#endif  // ONNX_LEGALIZE_SRC_GRAPH_LABELS_H_
