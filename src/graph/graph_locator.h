// Where a graph sits in a model, as a chain of steps from the main graph that survives the opset move (the
// plan is made on the original model and applied to the converted one), and the walk back along it.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_GRAPH_LOCATOR_H_
#define ONNX_LEGALIZE_SRC_GRAPH_GRAPH_LOCATOR_H_

#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The chain of (node, attribute, graph index) steps from the main graph to a subgraph; no steps for the
// main graph. A node is named by its first output, which is unique in its graph and survives the opset
// move (its name may be empty, its position may change).
struct GraphLocator {
  struct Step {
    std::string node_output;
    std::string attribute;
    int graph_index = 0;  // for GRAPHS attributes; 0 for GRAPH
  };
  std::vector<Step> steps;

  // This locator with one more step: into attribute `attribute`'s graph `graph_index` of `node`.
  GraphLocator Into(const onnx::NodeProto& node, const std::string& attribute, int graph_index) const;
};

// The subgraph `step` names inside `owner` (whose first output is step.node_output), or null when `owner`
// has no such attribute or graph.
onnx::GraphProto* SubgraphOf(onnx::NodeProto& owner, const GraphLocator::Step& step);

// The graph `locator` names in `model`. The locator must come from a walk over this model (or the model it
// was converted from): a step that names no node or subgraph is a broken invariant, and stops the walk at
// the graph it reached.
onnx::GraphProto& ResolveGraph(onnx::ModelProto& model, const GraphLocator& locator);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_GRAPH_LOCATOR_H_
