#include "graph/labels.h"

#include "absl/strings/str_cat.h"
#include "graph/subgraphs.h"

namespace onnx_legalize {

std::string NodeLabel(absl::string_view op_type, absl::string_view name, absl::string_view first_output) {
  if (!name.empty()) return absl::StrCat(op_type, " '", name, "'");
  if (!first_output.empty()) return absl::StrCat(op_type, " producing '", first_output, "'");
  return absl::StrCat(op_type, " (unnamed)");
}

std::string NodeLabel(const onnx::NodeProto& node) {
  return NodeLabel(node.op_type(), node.name(), node.output_size() > 0 ? node.output(0) : "");
}

std::string NodeLabelAt(const onnx::NodeProto& node, int index) {
  if (!node.name().empty()) return absl::StrCat(node.op_type(), " '", node.name(), "'");
  return absl::StrCat(node.op_type(), " node #", index);
}

std::string InGraph(absl::string_view what, absl::string_view graph_path) {
  return absl::StrCat(what, " (graph ", graph_path, ")");
}

std::string SubgraphPath(absl::string_view path, const onnx::NodeProto& node, const std::string& attribute,
                         const onnx::GraphProto& subgraph) {
  return absl::StrCat(path, "/", SubgraphPathSegment(node, attribute, subgraph));
}

}  // namespace onnx_legalize
