// How the opset upgrade names a node and a graph in its messages, written once for every part of it and for
// the check of its input (graph_validation.h, ValidateGraphsForConverter). A graph's path is "" for the main
// graph and "<node>.<attribute>" below it, joined by '/'; messages show the main graph as "main".
#ifndef ONNX_LEGALIZE_SRC_OPSET_UPGRADE_LABELS_H_
#define ONNX_LEGALIZE_SRC_OPSET_UPGRADE_LABELS_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize::opset_upgrade {

// 'name', or producing 'output' for an unnamed node, or (unnamed).
inline std::string NodeLabel(const onnx::NodeProto& node) {
  if (!node.name().empty()) return absl::StrCat("'", node.name(), "'");
  if (node.output_size() > 0 && !node.output(0).empty()) return absl::StrCat("producing '", node.output(0), "'");
  return "(unnamed)";
}

inline std::string GraphLabel(const std::string& path) { return path.empty() ? "main" : path; }

// The path of the graph that attribute `attribute` of `node` (in the graph at `path`) holds.
inline std::string SubgraphPath(const std::string& path, const onnx::NodeProto& node, const std::string& attribute) {
  return absl::StrCat(path.empty() ? "" : path + "/", node.name().empty() ? node.op_type() : node.name(), ".",
                      attribute);
}

}  // namespace onnx_legalize::opset_upgrade

#endif  // ONNX_LEGALIZE_SRC_OPSET_UPGRADE_LABELS_H_
