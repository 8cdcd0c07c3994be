#include "graph/graph_locator.h"

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

onnx::GraphProto& ResolveGraph(onnx::ModelProto& model, const GraphLocator& locator) {
  onnx::GraphProto* graph = model.mutable_graph();
  for (const GraphLocator::Step& step : locator.steps) {
    onnx::GraphProto* inner = nullptr;
    for (onnx::NodeProto& node : *graph->mutable_node()) {
      if (node.output_size() == 0 || node.output(0) != step.node_output) continue;
      inner = SubgraphOf(node, step);
      break;
    }
    if (inner == nullptr) break;
    graph = inner;
  }
  return *graph;
}

}  // namespace onnx_legalize
