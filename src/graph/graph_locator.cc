#include "graph/graph_locator.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace onnx_legalize {

GraphLocator GraphLocator::Into(const onnx::NodeProto& node, const std::string& attribute, int graph_index) const {
  GraphLocator inner = *this;
  inner.steps.push_back({node.output_size() > 0 ? node.output(0) : "", attribute, graph_index});
  return inner;
}

onnx::GraphProto* SubgraphOf(onnx::NodeProto& owner, const GraphLocator::Step& step) {
  for (onnx::AttributeProto& attribute : *owner.mutable_attribute()) {
    if (attribute.name() != step.attribute) continue;
    if (attribute.has_g()) return attribute.mutable_g();
    if (step.graph_index < attribute.graphs_size()) return attribute.mutable_graphs(step.graph_index);
  }
  return nullptr;
}

const std::string& OwnerOutputAfterMove(const GraphLocator::Step& step, const RenamedOutputs& renamed) {
  auto it = renamed.find(step.node_output);
  return it == renamed.end() ? step.node_output : it->second;
}

absl::StatusOr<onnx::GraphProto*> ResolveGraph(onnx::ModelProto& model, const GraphLocator& locator,
                                               const RenamedOutputs& renamed) {
  onnx::GraphProto* graph = model.mutable_graph();
  for (const GraphLocator::Step& step : locator.steps) {
    const std::string& owner_output = OwnerOutputAfterMove(step, renamed);
    onnx::GraphProto* inner = nullptr;
    for (onnx::NodeProto& node : *graph->mutable_node()) {
      if (node.output_size() == 0 || node.output(0) != owner_output) continue;
      inner = SubgraphOf(node, step);
      break;
    }
    if (inner == nullptr) {
      return absl::InternalError(absl::StrCat("no node whose first output is '", owner_output, "' holds graph ",
                                              step.graph_index, " of attribute '", step.attribute,
                                              "': the model changed under a plan made from it"));
    }
    graph = inner;
  }
  return graph;
}

}  // namespace onnx_legalize
