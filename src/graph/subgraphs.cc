#include "graph/subgraphs.h"

#include "absl/strings/str_cat.h"

namespace onnx_legalize {

void ForEachSubgraph(const onnx::NodeProto& node,
                     absl::FunctionRef<void(const std::string&, const onnx::GraphProto&)> visit) {
  for (const auto& attribute : node.attribute()) {
    if (attribute.has_g()) visit(attribute.name(), attribute.g());
    for (const auto& graph : attribute.graphs()) visit(attribute.name(), graph);
  }
}

void ForEachMutableSubgraph(onnx::NodeProto& node,
                            absl::FunctionRef<void(const std::string&, onnx::GraphProto&)> visit) {
  for (auto& attribute : *node.mutable_attribute()) {
    if (attribute.has_g()) visit(attribute.name(), *attribute.mutable_g());
    for (auto& graph : *attribute.mutable_graphs()) visit(attribute.name(), graph);
  }
}

bool HoldsSubgraph(const onnx::NodeProto& node) {
  for (const auto& attribute : node.attribute()) {
    if (attribute.has_g() || attribute.graphs_size() > 0) return true;
  }
  return false;
}

std::string SubgraphPathSegment(const onnx::NodeProto& node, const std::string& attribute,
                                const onnx::GraphProto& subgraph) {
  if (!subgraph.name().empty()) return subgraph.name();
  const std::string& owner = node.name().empty() ? node.op_type() : node.name();
  return absl::StrCat(owner, ".", attribute);
}

}  // namespace onnx_legalize
